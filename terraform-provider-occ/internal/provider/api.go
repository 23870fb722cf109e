package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"occ.local/terraform-provider-occ/internal/client"
)

// api is what resources and data sources share: the generated client, authenticated.
type api struct {
	*client.ClientWithResponses
}

func newAPI(endpoint, key string) (*api, error) {
	c, err := client.NewClientWithResponses(strings.TrimRight(endpoint, "/"),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	if err != nil {
		return nil, fmt.Errorf("endpoint %q: %w", endpoint, err)
	}
	return &api{c}, nil
}

// apiFailure describes an answer other than the one expected: the API's error code and
// message from its envelope when there is one (it never holds a secret), else the status.
func apiFailure(status int, body []byte) string {
	var env client.ErrorEnvelope
	if err := json.Unmarshal(body, &env); err == nil && env.Error.Code != "" {
		return fmt.Sprintf("HTTP %d %s: %s (request %s)", status, env.Error.Code, env.Error.Message, env.Meta.RequestId)
	}
	return fmt.Sprintf("HTTP %d", status)
}

// response is what every generated ...Response has.
type response interface {
	StatusCode() int
	GetBody() []byte
}

// check appends an error to diags unless the call succeeded with one of want; it reports
// whether the caller may go on. what names the operation and object, e.g. "read Role role_x".
func check(diags *diag.Diagnostics, what string, err error, res response, want ...int) bool {
	if err != nil {
		diags.AddError("OCC API unreachable", fmt.Sprintf("Could not %s: %s", what, err))
		return false
	}
	for _, w := range want {
		if res.StatusCode() == w {
			return true
		}
	}
	diags.AddError("OCC API refused the request",
		fmt.Sprintf("Could not %s: %s", what, apiFailure(res.StatusCode(), res.GetBody())))
	return false
}

// gone reports whether a read found nothing (404): the object was deleted outside.
func gone(err error, res response) bool {
	return err == nil && res.StatusCode() == http.StatusNotFound
}

// configureAPI takes the provider's api from a resource's or data source's Configure data.
func configureAPI(data any, diags *diag.Diagnostics) *api {
	if data == nil {
		return nil // before the provider is configured (validation)
	}
	a, ok := data.(*api)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *api, got %T", data))
		return nil
	}
	return a
}
