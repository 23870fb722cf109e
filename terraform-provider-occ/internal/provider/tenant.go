package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// namespaceIDAttribute is the `namespace_id` of a resource that lives in one Namespace.
func namespaceIDAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Required:      true,
		Description:   "The Namespace (`ns_…`) it belongs to.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

// idAttribute is a computed ID that stays the same across plans.
func idAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		Computed:      true,
		Description:   description,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// importTenantScoped imports a resource of a Namespace by `<namespace_id>/<id>`.
func importTenantScoped(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, id, ok := strings.Cut(req.ID, "/")
	if !ok || ns == "" || id == "" {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("Expected <namespace_id>/<id>, e.g. ns_abc/cfg_def; got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace_id"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}

// sameJSON reports whether two JSON texts hold the same value (key order and spacing aside).
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// keepPlan is Update of a resource whose arguments all require replacement: the API is not
// called, the plan (of model type T) becomes the state.
func keepPlan[T any](ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan T
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// replaced is a required string argument whose change replaces the resource.
func replaced(description string) schema.StringAttribute {
	return schema.StringAttribute{
		Required:      true,
		Description:   description,
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}
