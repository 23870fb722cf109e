package provider

import (
	"context"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"occ.local/terraform-provider-occ/internal/client"
)

type bindingResource struct{ api *api }

func newBindingResource() resource.Resource { return &bindingResource{} }

var (
	_ resource.ResourceWithConfigure   = (*bindingResource)(nil)
	_ resource.ResourceWithImportState = (*bindingResource)(nil)
)

type bindingModel struct {
	ID          types.String `tfsdk:"id"`
	PrincipalID types.String `tfsdk:"principal_id"`
	RoleID      types.String `tfsdk:"role_id"`
	NamespaceID types.String `tfsdk:"namespace_id"`
}

func (r *bindingResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_binding"
}

func (r *bindingResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Grants a role to a principal, in one Namespace or Installation-wide. Any change replaces it.",
		Attributes: map[string]schema.Attribute{
			"id":           idAttribute("The binding ID (`bnd_…`)."),
			"principal_id": replaced("The principal (`prn_…`) granted the role."),
			"role_id":      replaced("The role (`role_…`)."),
			"namespace_id": schema.StringAttribute{Optional: true,
				Description:   "The Namespace it applies in; omit for an Installation-wide binding.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		},
	}
}

func (r *bindingResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.api = configureAPI(req.ProviderData, &resp.Diagnostics)
}

func (r *bindingResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan bindingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := client.CreateBindingJSONRequestBody{
		PrincipalId: plan.PrincipalID.ValueString(),
		RoleId:      plan.RoleID.ValueString(),
		NamespaceId: plan.NamespaceID.ValueStringPointer(),
	}
	res, err := r.api.CreateBindingWithResponse(ctx, body)
	if !check(&resp.Diagnostics, "bind role "+body.RoleId+" to "+body.PrincipalId, err, res, http.StatusCreated) {
		return
	}
	plan.ID = types.StringValue(res.JSON201.Data.Id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *bindingResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var id string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	res, err := r.api.GetBindingWithResponse(ctx, id)
	if gone(err, res) {
		resp.State.RemoveResource(ctx)
		return
	}
	if !check(&resp.Diagnostics, "read binding "+id, err, res, http.StatusOK) {
		return
	}
	d := res.JSON200.Data
	state := bindingModel{
		ID:          types.StringValue(d.Id),
		PrincipalID: types.StringValue(d.PrincipalId),
		RoleID:      types.StringValue(d.RoleId),
		NamespaceID: types.StringPointerValue(d.NamespaceId),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *bindingResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	keepPlan[bindingModel](ctx, req, resp)
}

func (r *bindingResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var id string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	res, err := r.api.DeleteBindingWithResponse(ctx, id)
	if !resp.Diagnostics.HasError() && !gone(err, res) {
		check(&resp.Diagnostics, "delete binding "+id, err, res, http.StatusOK)
	}
}

func (r *bindingResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
