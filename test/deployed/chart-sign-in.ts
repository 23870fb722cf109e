/**
 * The chart suite's sign-in (test/deployed/chart.test.ts): a real OpenID Provider on the node's
 * address over https (pods reach it there), the API's https front on loopback (only the test
 * process, the person's browser, opens it), one throwaway CA for both, trusted by the browser
 * and, through the chart (`auth.oidc.caSecretName`), by the API; the Secrets the chart names.
 */
import { startOidcProvider } from "../harness/oidc-provider.js";
import { makeTestPki, startTlsFront } from "../harness/oidc-provider-tls.js";
import { kubectlApply } from "../harness/node/kubectl.js";
import type { DeployedEnvironment } from "../harness/node/environment.js";

/** The person who signs in through the provider (allowed by their e-mail domain). */
export const PERSON = {
  login: "dana",
  password: "deployed sign-in password",
  sub: "sub-dana",
  email: "dana@example.com",
};

/** The provider, the front and the chart's `auth` values for them, in release namespace `ns`. */
export async function startSignIn(env: DeployedEnvironment, ns: string) {
  const signInSetup = Date.now();
  const pki = await makeTestPki([env.nodeAddress, "127.0.0.1"]);
  const front = await startTlsFront(pki, "127.0.0.1");
  const client = { client_id: "occ", client_secret: "occ-deployed-client-secret-0123456789" };
  // The front stops again if the provider does not start (the caller has neither to stop).
  const idp = await startOidcProvider([
    {
      name: "idp",
      host: env.nodeAddress,
      tls: { cert: pki.cert, key: pki.key },
      accounts: [PERSON],
      clients: [{ ...client, redirect_uris: [`${front.url}/auth/oidc/callback`] }],
    },
  ]).catch(async (err: unknown) => {
    await front.stop();
    throw err;
  });
  const secret = (name: string, data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: ns },
    stringData: data,
  });
  await kubectlApply(env.kubeconfig, {
    apiVersion: "v1",
    kind: "List",
    items: [
      secret("occ-session", { "session-key": "deployed-session-key-".repeat(3) }),
      secret("occ-oidc-client", {
        "client-id": client.client_id,
        "client-secret": client.client_secret,
      }),
      secret("occ-oidc-ca", { "ca.crt": pki.ca }),
    ],
  });
  console.log(
    `[deployed] sign-in setup (CA, provider, Secrets) took ${Date.now() - signInSetup} ms`,
  );
  // A short resync keeps the worker looking at ready Namespaces during the upgrade.
  const auth = {
    baseUrl: front.url,
    secretName: "occ-session",
    // The break-glass principal: bootstrap makes it during the install (the upgrade names
    // it); until then this ID names no one, which the API only warns about.
    recoveryUserId: "prn_recovery-before-bootstrap",
    oidc: {
      enabled: true,
      issuer: idp.issuers.idp,
      displayName: "Deployed test SSO",
      clientSecretName: "occ-oidc-client",
      caSecretName: "occ-oidc-ca",
      allowedDomains: ["example.com"],
      egressCidrs: [`${env.nodeAddress}/32`],
    },
  };
  return { ca: pki.ca, front, idp, auth };
}
