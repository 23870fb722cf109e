package provider

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"occ.local/terraform-provider-occ/internal/client"
)

// namespaceModel is a Namespace as both the resource and the data source hold it.
type namespaceModel struct {
	ID                  types.String `tfsdk:"id"`
	Name                types.String `tfsdk:"name"`
	ExistingNamespace   types.String `tfsdk:"existing_namespace"`
	Status              types.String `tfsdk:"status"`
	StatusCode          types.String `tfsdk:"status_code"`
	StatusMessage       types.String `tfsdk:"status_message"`
	PlacementMode       types.String `tfsdk:"placement_mode"`
	KubernetesNamespace types.String `tfsdk:"kubernetes_namespace"`
	KubernetesUID       types.String `tfsdk:"kubernetes_uid"`
	CreatedAt           types.String `tfsdk:"created_at"`
}

// namespaceView is the Namespace of a GET answer.
type namespaceView = struct {
	CreatedAt         time.Time  `json:"createdAt"`
	ExistingNamespace *string    `json:"existingNamespace,omitempty"`
	Id                string     `json:"id"`
	LastReconciledAt  *time.Time `json:"lastReconciledAt"`
	Name              string     `json:"name"`
	Placement         struct {
		KubernetesNamespace *string                                                 `json:"kubernetesNamespace"`
		Mode                client.GetNamespace200JSONResponseBodyDataPlacementMode `json:"mode"`
		ObservedUid         *string                                                 `json:"observedUid"`
		Uid                 *string                                                 `json:"uid"`
	} `json:"placement"`
	Status       client.GetNamespace200JSONResponseBodyDataStatus `json:"status"`
	StatusReason *struct {
		Code    client.GetNamespace200JSONResponseBodyDataStatusReasonCode `json:"code"`
		Message string                                                     `json:"message"`
		Since   time.Time                                                  `json:"since"`
	} `json:"statusReason"`
}

func (m *namespaceModel) fill(v *namespaceView) {
	m.ID = types.StringValue(v.Id)
	m.Name = types.StringValue(v.Name)
	m.ExistingNamespace = types.StringPointerValue(v.ExistingNamespace)
	m.Status = types.StringValue(string(v.Status))
	m.StatusCode, m.StatusMessage = types.StringNull(), types.StringNull()
	if v.StatusReason != nil {
		m.StatusCode = types.StringValue(string(v.StatusReason.Code))
		m.StatusMessage = types.StringValue(v.StatusReason.Message)
	}
	m.PlacementMode = types.StringValue(string(v.Placement.Mode))
	m.KubernetesNamespace = types.StringPointerValue(v.Placement.KubernetesNamespace)
	m.KubernetesUID = types.StringPointerValue(v.Placement.Uid)
	m.CreatedAt = types.StringValue(v.CreatedAt.Format(time.RFC3339Nano))
}

// getNamespace reads one Namespace; nil without an error diagnostic when it does not exist.
func (a *api) getNamespace(ctx context.Context, id string, diags *diag.Diagnostics) *namespaceView {
	res, err := a.GetNamespaceWithResponse(ctx, id)
	if gone(err, res) {
		return nil
	}
	if !check(diags, "read Namespace "+id, err, res, http.StatusOK) {
		return nil
	}
	return &res.JSON200.Data
}

// namespacePollInterval is how often a wait reads the Namespace again.
const namespacePollInterval = 2 * time.Second

// waitNamespace polls until done says the Namespace is where it should be (true), or
// failed (an error naming the API's reason code and message), or ctx ends.
func (a *api) waitNamespace(ctx context.Context, id, what string, done func(*namespaceView) (bool, error)) (*namespaceView, error) {
	var last *namespaceView
	for {
		var diags diag.Diagnostics
		v := a.getNamespace(ctx, id, &diags)
		if diags.HasError() {
			return last, fmt.Errorf("reading Namespace %s: %s", id, diags.Errors()[0].Detail())
		}
		last = v
		ok, err := done(v)
		if err != nil || ok {
			return v, err
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("Namespace %s not %s in time (%s)", id, what, describe(last))
		case <-time.After(namespacePollInterval):
		}
	}
}

// describe is a Namespace's status and reason, for an error message.
func describe(v *namespaceView) string {
	if v == nil {
		return "absent"
	}
	if v.StatusReason == nil {
		return "status " + string(v.Status)
	}
	return fmt.Sprintf("status %s, reason %s: %s", v.Status, v.StatusReason.Code, v.StatusReason.Message)
}
