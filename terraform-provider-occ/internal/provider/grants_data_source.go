package provider

import (
	"context"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"occ.local/terraform-provider-occ/internal/client"
)

type grantsDataSource struct{ api *api }

func newGrantsDataSource() datasource.DataSource { return &grantsDataSource{} }

var _ datasource.DataSourceWithConfigure = (*grantsDataSource)(nil)

type grantsModel struct {
	NamespaceID types.String `tfsdk:"namespace_id"`
	Grants      []grantModel `tfsdk:"grants"`
}

type grantModel struct {
	BindingID   types.String `tfsdk:"binding_id"`
	PrincipalID types.String `tfsdk:"principal_id"`
	RoleID      types.String `tfsdk:"role_id"`
}

// grantsPageSize is how many bindings one request asks for (the API's largest page).
const grantsPageSize = 1000

func (d *grantsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_namespace_grants"
}

func (d *grantsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(description string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, Description: description}
	}
	resp.Schema = schema.Schema{
		Description: "The grants of one Namespace: every binding of a role to a principal in it (Installation-wide bindings are not listed).",
		Attributes: map[string]schema.Attribute{
			"namespace_id": schema.StringAttribute{Required: true, Description: "The Namespace ID (`ns_…`)."},
			"grants": schema.ListNestedAttribute{
				Computed:    true,
				Description: "The bindings, in the API's order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"binding_id":   computed("The binding (`bnd_…`)."),
					"principal_id": computed("The principal granted the role (`prn_…`)."),
					"role_id":      computed("The role (`role_…`)."),
				}},
			},
		},
	}
}

func (d *grantsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.api = configureAPI(req.ProviderData, &resp.Diagnostics)
}

func (d *grantsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m grantsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, limit := m.NamespaceID.ValueString(), grantsPageSize
	params := client.ListBindingsParams{NamespaceId: &ns, Limit: &limit}
	m.Grants = []grantModel{}
	for {
		res, err := d.api.ListBindingsWithResponse(ctx, &params)
		if !check(&resp.Diagnostics, "list the bindings of Namespace "+ns, err, res, http.StatusOK) {
			return
		}
		for _, b := range res.JSON200.Data {
			m.Grants = append(m.Grants, grantModel{types.StringValue(b.Id), types.StringValue(b.PrincipalId), types.StringValue(b.RoleId)})
		}
		if res.JSON200.Meta.NextCursor == nil {
			break
		}
		params.Cursor = res.JSON200.Meta.NextCursor
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
