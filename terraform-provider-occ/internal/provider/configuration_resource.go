package provider

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"occ.local/terraform-provider-occ/internal/client"
)

type configurationResource struct{ api *api }

func newConfigurationResource() resource.Resource { return &configurationResource{} }

var (
	_ resource.ResourceWithConfigure   = (*configurationResource)(nil)
	_ resource.ResourceWithImportState = (*configurationResource)(nil)
)

type configurationModel struct {
	ID          types.String `tfsdk:"id"`
	NamespaceID types.String `tfsdk:"namespace_id"`
	Kind        types.String `tfsdk:"kind"`
	Values      types.String `tfsdk:"values"`
	Generation  types.Int64  `tfsdk:"generation"`
}

func (r *configurationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_configuration"
}

func (r *configurationResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A Configuration of a Namespace: a JSON document kept in a ConfigMap of the tenant's Kubernetes namespace. " +
			"Import with `<namespace_id>/<id>`.",
		Attributes: map[string]schema.Attribute{
			"id":           idAttribute("The Configuration ID (`cfg_…`)."),
			"namespace_id": namespaceIDAttribute(),
			"kind": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("agent"),
				Description:   "The kind of document (`agent`).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"values": schema.StringAttribute{Required: true,
				Description: "The document, a JSON object (use jsonencode). A change made outside shows as a difference."},
			"generation": schema.Int64Attribute{Computed: true, Description: "Starts at 1 and grows with every update."},
		},
	}
}

func (r *configurationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.api = configureAPI(req.ProviderData, &resp.Diagnostics)
}

// document parses `values`; false (with an error) when it is not a JSON object.
func (m *configurationModel) document(resp interface{ AddError(string, string) }) (map[string]any, bool) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(m.Values.ValueString()), &doc); err != nil || doc == nil {
		resp.AddError("values is not a JSON object", "Set values with jsonencode({ ... }).")
		return nil, false
	}
	return doc, true
}

// read refreshes m from the API; false when the Configuration no longer exists.
func (r *configurationResource) read(ctx context.Context, m *configurationModel, resp *resource.ReadResponse) bool {
	ns, id := m.NamespaceID.ValueString(), m.ID.ValueString()
	res, err := r.api.GetConfigurationWithResponse(ctx, ns, id)
	if gone(err, res) || !check(&resp.Diagnostics, "read Configuration "+id, err, res, http.StatusOK) {
		return false
	}
	d := res.JSON200.Data
	text, err := json.Marshal(d.Values)
	if err != nil {
		resp.Diagnostics.AddError("Configuration unreadable", err.Error())
		return false
	}
	if !sameJSON(m.Values.ValueString(), string(text)) {
		m.Values = types.StringValue(string(text))
	}
	m.Kind = types.StringValue(string(d.Kind))
	m.Generation = types.Int64Value(int64(d.Generation))
	return true
}

func (r *configurationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan configurationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	doc, ok := plan.document(&resp.Diagnostics)
	if resp.Diagnostics.HasError() || !ok {
		return
	}
	ns := plan.NamespaceID.ValueString()
	body := client.CreateConfigurationJSONRequestBody{Kind: client.CreateConfigurationJSONBodyKind(plan.Kind.ValueString()), Values: doc}
	res, err := r.api.CreateConfigurationWithResponse(ctx, ns, body)
	if !check(&resp.Diagnostics, "create a Configuration in Namespace "+ns, err, res, http.StatusCreated) {
		return
	}
	plan.ID = types.StringValue(res.JSON201.Data.Id)
	plan.Generation = types.Int64Value(int64(res.JSON201.Data.Generation))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *configurationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state configurationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.read(ctx, &state, resp) {
		if !resp.Diagnostics.HasError() {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *configurationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan configurationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	doc, ok := plan.document(&resp.Diagnostics)
	if resp.Diagnostics.HasError() || !ok {
		return
	}
	ns, id := plan.NamespaceID.ValueString(), plan.ID.ValueString()
	res, err := r.api.UpdateConfigurationWithResponse(ctx, ns, id, client.UpdateConfigurationJSONRequestBody{Values: doc})
	if !check(&resp.Diagnostics, "update Configuration "+id, err, res, http.StatusOK) {
		return
	}
	plan.Generation = types.Int64Value(int64(res.JSON200.Data.Generation))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *configurationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state configurationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	res, err := r.api.DeleteConfigurationWithResponse(ctx, state.NamespaceID.ValueString(), id)
	if !gone(err, res) {
		check(&resp.Diagnostics, "delete Configuration "+id, err, res, http.StatusNoContent)
	}
}

func (r *configurationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importTenantScoped(ctx, req, resp)
}
