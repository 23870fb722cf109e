package provider

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"occ.local/terraform-provider-occ/internal/client"
)

// namespaceTimeout bounds the wait for a Namespace to become ready, or to be deleted.
const namespaceTimeout = 10 * time.Minute

type namespaceResource struct{ api *api }

func newNamespaceResource() resource.Resource { return &namespaceResource{} }

var (
	_ resource.ResourceWithConfigure   = (*namespaceResource)(nil)
	_ resource.ResourceWithImportState = (*namespaceResource)(nil)
)

func (r *namespaceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_namespace"
}

func (r *namespaceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "A platform Namespace (tenant), placed in one Kubernetes namespace. Create waits until it is ready; " +
			"deleting it deletes a managed namespace, while an existing (external) namespace is retained by the API.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, Description: "The Namespace ID (`ns_…`).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
				Description: "The display name, unique in the Installation for ever (a deleted Namespace's name is retired)."},
			"existing_namespace": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				Description: "An operator-owned Kubernetes namespace to adopt (external placement; administrators only). Omit for a managed namespace."},
			"status":               computedString("provisioning, ready, degraded, failed or deleting."),
			"status_code":          computedString("Why the Namespace is not ready (a stable code), or null."),
			"status_message":       computedString("The reason's message, or null."),
			"placement_mode":       computedString("managed, external or preprovisioned."),
			"kubernetes_namespace": computedString("The Kubernetes namespace the tenant is placed in."),
			"kubernetes_uid":       computedString("metadata.uid of the bound Kubernetes namespace."),
			"created_at": schema.StringAttribute{Computed: true, Description: "When the Namespace was created.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		},
	}
}

func (r *namespaceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.api = configureAPI(req.ProviderData, &resp.Diagnostics)
}

func (r *namespaceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan namespaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := client.CreateNamespaceJSONRequestBody{Name: plan.Name.ValueString(), ExistingNamespace: plan.ExistingNamespace.ValueStringPointer()}
	res, err := r.api.CreateNamespaceWithResponse(ctx, body)
	if !check(&resp.Diagnostics, "create Namespace "+plan.Name.String(), err, res, http.StatusCreated) {
		return
	}
	id := res.JSON201.Data.Id
	// Saved before the wait: a Namespace that fails stays in state (tainted), to be destroyed.
	plan.ID = types.StringValue(id)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	wait, cancel := context.WithTimeout(ctx, namespaceTimeout)
	defer cancel()
	v, err := r.api.waitNamespace(wait, id, "ready", func(v *namespaceView) (bool, error) {
		if v == nil {
			return false, fmt.Errorf("Namespace %s disappeared while provisioning", id)
		}
		if v.Status == "failed" {
			return false, fmt.Errorf("Namespace %s failed: %s", id, describe(v))
		}
		return v.Status == "ready", nil
	})
	if v != nil {
		plan.fill(v)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
	if err != nil {
		resp.Diagnostics.AddError("Namespace not ready", err.Error())
	}
}

func (r *namespaceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state namespaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	v := r.api.getNamespace(ctx, state.ID.ValueString(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if v == nil {
		resp.State.RemoveResource(ctx)
		return
	}
	state.fill(v)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update never reaches the API: every argument requires replacement.
func (r *namespaceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	keepPlan[namespaceModel](ctx, req, resp)
}

func (r *namespaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state namespaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	res, err := r.api.DeleteNamespaceWithResponse(ctx, id)
	if gone(err, res) || !check(&resp.Diagnostics, "delete Namespace "+id, err, res, http.StatusAccepted) {
		return
	}
	wait, cancel := context.WithTimeout(ctx, namespaceTimeout)
	defer cancel()
	_, err = r.api.waitNamespace(wait, id, "deleted", func(v *namespaceView) (bool, error) {
		if v != nil && v.Status == "failed" {
			return false, fmt.Errorf("deleting Namespace %s failed: %s", id, describe(v))
		}
		return v == nil, nil
	})
	if err != nil {
		resp.Diagnostics.AddError("Namespace not deleted", err.Error())
	}
}

func (r *namespaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// computedString is a read-only string attribute.
func computedString(description string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, Description: description}
}
