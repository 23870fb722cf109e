package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

type namespaceDataSource struct{ api *api }

func newNamespaceDataSource() datasource.DataSource { return &namespaceDataSource{} }

var _ datasource.DataSourceWithConfigure = (*namespaceDataSource)(nil)

func (d *namespaceDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_namespace"
}

func (d *namespaceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, Description: description}
	}
	resp.Schema = schema.Schema{
		Description: "Reads one platform Namespace (tenant) by ID: its status, reason and placement.",
		Attributes: map[string]schema.Attribute{
			"id":                   schema.StringAttribute{Required: true, Description: "The Namespace ID (`ns_…`)."},
			"name":                 computed("The display name."),
			"existing_namespace":   computed("The adopted Kubernetes namespace of an external placement, or null."),
			"status":               computed("provisioning, ready, degraded, failed or deleting."),
			"status_code":          computed("Why it is not ready (a stable code), or null."),
			"status_message":       computed("The reason's message, or null."),
			"placement_mode":       computed("managed, external or preprovisioned."),
			"kubernetes_namespace": computed("The Kubernetes namespace the tenant is placed in."),
			"kubernetes_uid":       computed("metadata.uid of the bound Kubernetes namespace."),
			"created_at":           computed("When the Namespace was created."),
		},
	}
}

func (d *namespaceDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.api = configureAPI(req.ProviderData, &resp.Diagnostics)
}

func (d *namespaceDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m namespaceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	v := d.api.getNamespace(ctx, m.ID.ValueString(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if v == nil {
		resp.Diagnostics.AddError("Namespace not found", "No Namespace "+m.ID.ValueString()+" (or not visible to this API key).")
		return
	}
	m.fill(v)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
