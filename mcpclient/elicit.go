package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

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
		res.Content = out.Content
	}
	return res, nil
}
