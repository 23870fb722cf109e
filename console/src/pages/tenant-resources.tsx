/** A Namespace's Configurations, Secrets (names only), ServiceAccounts and Agents. */
import { useEffect, useState } from "preact/hooks";
import { api, TENANT_KINDS, type TenantKind } from "../api.js";
import type { ConfigurationView } from "../../../src/contract/configurations.js";
import type { SecretView } from "../../../src/contract/secrets.js";
import type { ServiceAccountView } from "../../../src/contract/service-accounts.js";
import type { AgentView } from "../../../src/contract/agents.js";
import { Refusal, Status, Time } from "../ui.js";

type Row = ConfigurationView | SecretView | ServiceAccountView | AgentView;

const TITLES: Record<TenantKind, string> = {
  configurations: "Configurations",
  secrets: "Secrets",
  "service-accounts": "ServiceAccounts",
  agents: "Agents",
};

function label(row: Row): string {
  return "name" in row ? row.name : `${row.kind} (generation ${row.generation})`;
}

function List(props: { id: string; kind: TenantKind }) {
  const [rows, setRows] = useState<readonly Row[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.tenantList<Row>(props.id, props.kind).then((p) => {
      setRows(p.items);
    }, setError);
  }, [props.id, props.kind]);
  const title = TITLES[props.kind];
  return (
    <section aria-labelledby={`${props.kind}-heading`} class="resources">
      <h3 id={`${props.kind}-heading`}>{title}</h3>
      <Refusal error={error} />
      {rows === null ? null : rows.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul>
          {rows.map((r) => (
            <li key={r.id}>
              <span>{label(r)}</span> <span class="mono muted">{r.id}</span>
              {"status" in r ? (
                <>
                  {" "}
                  <Status status={r.status} />
                  {r.statusReason === null ? null : (
                    <span>
                      {" "}
                      {r.statusReason.code}: {r.statusReason.message}
                    </span>
                  )}
                </>
              ) : null}{" "}
              <span class="muted">
                created <Time at={r.createdAt} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function TenantResources(props: { id: string }) {
  return (
    <section aria-labelledby="resources-heading">
      <h2 id="resources-heading">Resources</h2>
      {TENANT_KINDS.map((kind) => (
        <List id={props.id} kind={kind} key={kind} />
      ))}
    </section>
  );
}
