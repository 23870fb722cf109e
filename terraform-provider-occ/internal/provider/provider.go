// Package provider implements the OCC provider on terraform-plugin-framework: its
// configuration (endpoint and API key), resources and data sources.
package provider

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// New returns the provider factory providerserver.Serve expects.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &occProvider{version: version} }
}

type occProvider struct {
	version string
}

type providerModel struct {
	Endpoint types.String `tfsdk:"endpoint"`
	APIKey   types.String `tfsdk:"api_key"`
}

func (p *occProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "occ"
	resp.Version = p.version
}

func (p *occProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Manages tenants of an OCC control plane through its API.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				Optional:    true,
				Description: "The OCC API's base URL, e.g. http://localhost:8080. Default: OCC_ENDPOINT.",
			},
			"api_key": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "An OCC API key (sent as a bearer token). Default: OCC_API_KEY.",
			},
		},
	}
}

func (p *occProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	endpoint := valueOr(cfg.Endpoint, os.Getenv("OCC_ENDPOINT"))
	key := valueOr(cfg.APIKey, os.Getenv("OCC_API_KEY"))
	if endpoint == "" || key == "" {
		resp.Diagnostics.AddError("OCC provider not configured",
			"Set the provider's endpoint and api_key, or the OCC_ENDPOINT and OCC_API_KEY environment variables.")
		return
	}
	api, err := newAPI(endpoint, key)
	if err != nil {
		resp.Diagnostics.AddError("OCC provider endpoint invalid", err.Error())
		return
	}
	resp.ResourceData = api
	resp.DataSourceData = api
}

func (p *occProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		newNamespaceResource,
		newConfigurationResource,
		newSecretResource,
		newServiceAccountResource,
		newRoleResource,
		newBindingResource,
	}
}

func (p *occProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newNamespaceDataSource, newGrantsDataSource}
}

// valueOr is the configured value, or fallback when it is null, unknown or empty.
func valueOr(v types.String, fallback string) string {
	if v.IsNull() || v.IsUnknown() || v.ValueString() == "" {
		return fallback
	}
	return v.ValueString()
}
