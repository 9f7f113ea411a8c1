package proxy

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// idReading is the id a lenient reader takes raw for: the TypeScript SDK
// matches a response to its request by Number(response.id), so to it the
// string "2", the string " 0x2 " and the number 2 are one id. Two open
// requests whose readings are equal could each be answered by the other's
// response, so the proxy keeps no two such open in one direction. raw is
// an id the proxy took (validID) or a response's id.
func idReading(raw []byte) string {
	if asWritten(raw) {
		return idKey(raw) // "n" and the digits: numberReading's spelling of them
	}
	if len(raw) > 0 && raw[0] == '"' {
		s, err := stringValue(raw)
		if err != nil {
			return "?" + string(raw)
		}
		if f, ok := jsNumber(s); ok {
			return numberReading(f)
		}
		return "s" + s
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return "?" + string(raw)
	}
	return numberReading(f)
}

// asWritten says raw is a number numberReading spells as written: an
// integer of at most six digits (from 1e6 on, it writes an exponent),
// with no leading zero, and a minus sign unless it is -0. Hosts number
// their requests so: their ids are read without a float's round trip.
func asWritten(raw []byte) bool {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 6 || digits[0] == '0' && (len(digits) > 1 || len(raw) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func numberReading(f float64) string {
	if f == 0 {
		f = 0 // -0 and 0 are one key in a JavaScript Map
	}
	var buf [32]byte // one allocation, the string's
	return string(strconv.AppendFloat(append(buf[:0], 'n'), f, 'g', -1, 64))
}

// jsNumber is JavaScript's Number(s) for a string, when that is a number
// and not NaN: blanks around it ignored, "" and blanks alone 0, decimal
// with a sign, fraction and exponent, 0x, 0o and 0b integers, Infinity.
func jsNumber(s string) (float64, bool) {
	s = strings.TrimFunc(s, jsSpace)
	switch {
	case s == "":
		return 0, true
	case s == "Infinity" || s == "+Infinity":
		return math.Inf(1), true
	case s == "-Infinity":
		return math.Inf(-1), true
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			f := 0.0
			for _, c := range s[2:] {
				d := digitValue(c)
				if d < 0 || d >= base {
					return 0, false
				}
				f = f*float64(base) + float64(d)
			}
			return f, true
		}
	}
	// StrDecimalLiteral: [+-] (digits [. digits] | . digits) [e [+-] digits]
	i := 0
	if s[i] == '+' || s[i] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRange(err) {
		return 0, false
	}
	return f, true // out of range: ±Inf or 0, as JavaScript rounds it
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func digitValue(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// jsSpace is JavaScript's WhiteSpace and LineTerminator, which Number()
// trims.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', '\ufeff', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
