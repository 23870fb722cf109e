package provider

import (
	"context"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"occ.local/terraform-provider-occ/internal/client"
)

type serviceAccountResource struct{ api *api }

func newServiceAccountResource() resource.Resource { return &serviceAccountResource{} }

var (
	_ resource.ResourceWithConfigure   = (*serviceAccountResource)(nil)
	_ resource.ResourceWithImportState = (*serviceAccountResource)(nil)
)

type serviceAccountModel struct {
	ID               types.String `tfsdk:"id"`
	NamespaceID      types.String `tfsdk:"namespace_id"`
	Name             types.String `tfsdk:"name"`
	CredentialKind   types.String `tfsdk:"credential_kind"`
	CredentialSecret types.String `tfsdk:"credential_secret_id"`
}

func (r *serviceAccountResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_service_account"
}

func (r *serviceAccountResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	optional := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: description,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}
	}
	resp.Schema = schema.Schema{
		Description: "A ServiceAccount of a Namespace, optionally with a credential held in one of its Secrets. " +
			"It cannot be changed: any change replaces it. Import with `<namespace_id>/<id>`.",
		Attributes: map[string]schema.Attribute{
			"id":                   idAttribute("The ServiceAccount ID (`sa_…`)."),
			"namespace_id":         namespaceIDAttribute(),
			"name":                 replaced("The name, unique in the Namespace."),
			"credential_kind":      optional("`api_key` or `oauth_token`; with credential_secret_id."),
			"credential_secret_id": optional("The Secret (`sec_…`, same Namespace) holding the credential."),
		},
	}
}

func (r *serviceAccountResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.api = configureAPI(req.ProviderData, &resp.Diagnostics)
}

func (r *serviceAccountResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan serviceAccountModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := client.CreateServiceAccountJSONRequestBody{Name: plan.Name.ValueString()}
	if !plan.CredentialKind.IsNull() || !plan.CredentialSecret.IsNull() {
		body.Credential = &struct {
			Kind      client.CreateServiceAccountJSONBodyCredentialKind `json:"kind"`
			SecretRef string                                            `json:"secretRef"`
		}{client.CreateServiceAccountJSONBodyCredentialKind(plan.CredentialKind.ValueString()), plan.CredentialSecret.ValueString()}
	}
	ns := plan.NamespaceID.ValueString()
	res, err := r.api.CreateServiceAccountWithResponse(ctx, ns, body)
	if !check(&resp.Diagnostics, "create ServiceAccount "+plan.Name.String()+" in Namespace "+ns, err, res, http.StatusCreated) {
		return
	}
	plan.ID = types.StringValue(res.JSON201.Data.Id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *serviceAccountResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state serviceAccountModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	res, err := r.api.GetServiceAccountWithResponse(ctx, state.NamespaceID.ValueString(), id)
	if gone(err, res) {
		resp.State.RemoveResource(ctx)
		return
	}
	if !check(&resp.Diagnostics, "read ServiceAccount "+id, err, res, http.StatusOK) {
		return
	}
	d := res.JSON200.Data
	state.Name = types.StringValue(d.Name)
	state.CredentialKind, state.CredentialSecret = types.StringNull(), types.StringNull()
	if d.Credential != nil {
		state.CredentialKind = types.StringValue(string(d.Credential.Kind))
		state.CredentialSecret = types.StringValue(d.Credential.SecretRef)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *serviceAccountResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	keepPlan[serviceAccountModel](ctx, req, resp)
}

func (r *serviceAccountResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state serviceAccountModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	res, err := r.api.DeleteServiceAccountWithResponse(ctx, state.NamespaceID.ValueString(), id)
	if !gone(err, res) {
		check(&resp.Diagnostics, "delete ServiceAccount "+id, err, res, http.StatusNoContent)
	}
}

func (r *serviceAccountResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importTenantScoped(ctx, req, resp)
}
