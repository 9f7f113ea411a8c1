package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-policy/mcp-policy/provider"
)

// elicitHandler adapts the hook to mcp-go. mcp-go calls it for both eras: in
// an input-required round with a ctx derived from the call's, and for a
// server-initiated elicitation/create with the ctx the client was started on.
type elicitHandler struct{ c *Client }

func (h elicitHandler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (res *mcp.ElicitationResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("elicitation hook panicked: %v", r)
		}
	}()
	hookCtx, cl := h.c.attribute(ctx)
	if cl != nil {
		cl.pause()
		defer cl.resume()
		// Whoever answers knows which call asked (a policy puts it in the
		// question).
		hookCtx = provider.WithCall(hookCtx, cl.pc)
	}
	params, err := json.Marshal(req.Params)
	if err != nil {
		return nil, fmt.Errorf("elicitation params: %w", err)
	}
	out, err := h.c.cfg.hook(hookCtx, provider.ElicitRequest{Method: provider.ElicitMethod, Params: params})
	if err != nil {
		return nil, fmt.Errorf("elicitation hook: %w", err)
	}
	action := mcp.ElicitationResponseAction(out.Action)
	switch action {
	case mcp.ElicitationResponseActionAccept, mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel:
	default:
		return nil, fmt.Errorf("elicitation hook: unknown action %q", out.Action)
	}
	res = &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action}}
	// Content belongs to an accept only; a nil map must not become "null".
	if action == mcp.ElicitationResponseActionAccept && out.Content != nil {
		if err := checkContent(req.Params.RequestedSchema, out.Content); err != nil {
			return nil, fmt.Errorf("elicitation hook: the answer does not fit the server's form: %w", err)
		}
		res.Content = out.Content
	}
	return res, nil
}

// samplingHandler adapts WithSamplingHandler's function to mcp-go, with
// the provoking call's ctx where it is known, its timeout paused.
type samplingHandler struct{ c *Client }

func (h samplingHandler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (res *mcp.CreateMessageResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("sampling handler panicked: %v", r)
		}
	}()
	hookCtx, cl := h.c.attribute(ctx)
	if cl != nil {
		cl.pause()
		defer cl.resume()
		hookCtx = provider.WithCall(hookCtx, cl.pc)
	}
	return h.c.cfg.sampling(hookCtx, req)
}

// rootsHandler answers roots/list with WithRoots' directories.
type rootsHandler struct{ dirs []string }

func (h rootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	out := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range h.dirs {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(d)}
		out.Roots = append(out.Roots, mcp.Root{URI: u.String(), Name: filepath.Base(d)})
	}
	return out, nil
}
