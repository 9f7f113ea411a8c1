package lexical

// FoldedPathsKey is the context key under which a decision's evaluation
// carries the folded spelling of its call's paths (a FoldedPaths): the
// call's paths are folded once, for matching, and the floor's builtins
// that compare a path folded take it from there instead of folding it
// again.
type FoldedPathsKey struct{}

// FoldedPaths gives the folded spelling (FoldPath of AbsClean) of a path of
// the call being decided; false for a path that is not one of its paths.
type FoldedPaths interface {
	FoldedPath(p string) (string, bool)
}
