package main

import "errors"

func newHTTPUpstream(url string, headers []string) (upstream, error) {
	return nil, errors.New("not yet")
}
