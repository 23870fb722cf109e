package provider

import (
	"context"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"occ.local/terraform-provider-occ/internal/client"
)

type secretResource struct{ api *api }

func newSecretResource() resource.Resource { return &secretResource{} }

var (
	_ resource.ResourceWithConfigure   = (*secretResource)(nil)
	_ resource.ResourceWithImportState = (*secretResource)(nil)
)

// secretModel's Value is always null: the value is write-only, read from the configuration
// alone (configuredValue), and never in the plan or the state.
type secretModel struct {
	ID           types.String `tfsdk:"id"`
	NamespaceID  types.String `tfsdk:"namespace_id"`
	Name         types.String `tfsdk:"name"`
	Value        types.String `tfsdk:"value"`
	ValueVersion types.Int64  `tfsdk:"value_version"`
	Version      types.Int64  `tfsdk:"version"`
}

func (r *secretResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_secret"
}

func (r *secretResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A Secret of a Namespace. Its value is write-only: sent to the API, never stored in the plan or state " +
			"(OpenTofu ≥ 1.11 / Terraform ≥ 1.11). Change value_version to send a new value. Import with `<namespace_id>/<id>`.",
		Attributes: map[string]schema.Attribute{
			"id":           idAttribute("The Secret ID (`sec_…`)."),
			"namespace_id": namespaceIDAttribute(),
			"name": schema.StringAttribute{Required: true, Description: "The Secret's name, unique in the Namespace.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"value": schema.StringAttribute{Required: true, WriteOnly: true, Sensitive: true,
				Description: "The secret value (write-only: never read back, never in state)."},
			"value_version": schema.Int64Attribute{Optional: true,
				Description: "Any number; a change sends value again (a rotation)."},
			"version": schema.Int64Attribute{Computed: true, Description: "The API's version of the value: grows with every new value."},
		},
	}
}

func (r *secretResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.api = configureAPI(req.ProviderData, &resp.Diagnostics)
}

// configuredValue is the write-only value, read from the configuration (never the plan).
func configuredValue(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) string {
	var v types.String
	diags.Append(cfg.GetAttribute(ctx, path.Root("value"), &v)...)
	return v.ValueString()
}

func (r *secretResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan secretModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	val := configuredValue(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns := plan.NamespaceID.ValueString()
	body := client.CreateSecretJSONRequestBody{Name: plan.Name.ValueString(), Value: val}
	res, err := r.api.CreateSecretWithResponse(ctx, ns, body)
	if !check(&resp.Diagnostics, "create Secret "+plan.Name.String()+" in Namespace "+ns, err, res, http.StatusCreated) {
		return
	}
	plan.ID, plan.Value = types.StringValue(res.JSON201.Data.Id), types.StringNull()
	plan.Version = types.Int64Value(int64(res.JSON201.Data.Version))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *secretResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state secretModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	res, err := r.api.GetSecretWithResponse(ctx, state.NamespaceID.ValueString(), id)
	if gone(err, res) {
		resp.State.RemoveResource(ctx)
		return
	}
	if !check(&resp.Diagnostics, "read Secret "+id, err, res, http.StatusOK) {
		return
	}
	state.Name = types.StringValue(res.JSON200.Data.Name)
	state.Version = types.Int64Value(int64(res.JSON200.Data.Version))
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update sends the configured value again: value_version changed.
func (r *secretResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan secretModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	val := configuredValue(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id := plan.ID.ValueString()
	body := client.UpdateSecretJSONRequestBody{Value: val}
	res, err := r.api.UpdateSecretWithResponse(ctx, plan.NamespaceID.ValueString(), id, body)
	if !check(&resp.Diagnostics, "update Secret "+id, err, res, http.StatusOK) {
		return
	}
	plan.Value = types.StringNull()
	plan.Version = types.Int64Value(int64(res.JSON200.Data.Version))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *secretResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state secretModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	res, err := r.api.DeleteSecretWithResponse(ctx, state.NamespaceID.ValueString(), id)
	if !gone(err, res) {
		check(&resp.Diagnostics, "delete Secret "+id, err, res, http.StatusNoContent)
	}
}

func (r *secretResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importTenantScoped(ctx, req, resp)
}
