package provider

import (
	"context"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"occ.local/terraform-provider-occ/internal/client"
)

type roleResource struct{ api *api }

func newRoleResource() resource.Resource { return &roleResource{} }

var (
	_ resource.ResourceWithConfigure   = (*roleResource)(nil)
	_ resource.ResourceWithImportState = (*roleResource)(nil)
)

type roleModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	Permissions types.Set    `tfsdk:"permissions"`
}

type permissionModel struct {
	Action types.String `tfsdk:"action"`
	Kind   types.String `tfsdk:"kind"`
}

var permissionType = types.ObjectType{AttrTypes: map[string]attr.Type{"action": types.StringType, "kind": types.StringType}}

func (r *roleResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_role"
}

func (r *roleResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "An IAM role: a named set of permissions (action on kind). Roles cannot be changed: any change replaces it.",
		Attributes: map[string]schema.Attribute{
			"id":   idAttribute("The role ID (`role_…`)."),
			"name": replaced("The role's name."),
			"description": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(""),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"permissions": schema.SetNestedAttribute{
				Required:      true,
				Description:   "The permissions, e.g. { action = \"read\", kind = \"configuration\" }.",
				PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"action": schema.StringAttribute{Required: true, Description: "create, read, update, delete, … (the API's vocabulary)."},
					"kind":   schema.StringAttribute{Required: true, Description: "installation, namespace, configuration, … (the API's vocabulary)."},
				}},
			},
		},
	}
}

func (r *roleResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.api = configureAPI(req.ProviderData, &resp.Diagnostics)
}

func (r *roleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan roleModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var perms []permissionModel
	resp.Diagnostics.Append(plan.Permissions.ElementsAs(ctx, &perms, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := client.CreateRoleJSONRequestBody{Name: plan.Name.ValueString(), Description: plan.Description.ValueStringPointer()}
	for _, p := range perms {
		body.Permissions = append(body.Permissions, struct {
			Action client.CreateRoleJSONBodyPermissionsAction `json:"action"`
			Kind   client.CreateRoleJSONBodyPermissionsKind   `json:"kind"`
		}{client.CreateRoleJSONBodyPermissionsAction(p.Action.ValueString()), client.CreateRoleJSONBodyPermissionsKind(p.Kind.ValueString())})
	}
	res, err := r.api.CreateRoleWithResponse(ctx, body)
	if !check(&resp.Diagnostics, "create role "+plan.Name.String(), err, res, http.StatusCreated) {
		return
	}
	plan.ID = types.StringValue(res.JSON201.Data.Id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *roleResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var id string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	res, err := r.api.GetRoleWithResponse(ctx, id)
	if gone(err, res) {
		resp.State.RemoveResource(ctx)
		return
	}
	if !check(&resp.Diagnostics, "read role "+id, err, res, http.StatusOK) {
		return
	}
	d := res.JSON200.Data
	perms := make([]permissionModel, 0, len(d.Permissions))
	for _, p := range d.Permissions {
		perms = append(perms, permissionModel{types.StringValue(string(p.Action)), types.StringValue(string(p.Kind))})
	}
	set, diags := types.SetValueFrom(ctx, permissionType, perms)
	resp.Diagnostics.Append(diags...)
	state := roleModel{ID: types.StringValue(d.Id), Name: types.StringValue(d.Name), Description: types.StringValue(d.Description), Permissions: set}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *roleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	keepPlan[roleModel](ctx, req, resp)
}

func (r *roleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var id string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	res, err := r.api.DeleteRoleWithResponse(ctx, id)
	if !resp.Diagnostics.HasError() && !gone(err, res) {
		check(&resp.Diagnostics, "delete role "+id, err, res, http.StatusOK)
	}
}

func (r *roleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
