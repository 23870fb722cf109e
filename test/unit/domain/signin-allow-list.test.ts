import { describe, expect, it } from "vitest";
import {
  allowListVerdict,
  emailDomain,
  type AllowLists,
  type IdentityClaims,
  type SignInProvider,
} from "../../../src/domain/index.js";

const NONE: AllowLists = { allowedEmails: [], allowedDomains: [], allowedGroups: [] };
const claims = (over: Partial<IdentityClaims>): IdentityClaims => ({
  email: "ada@example.com",
  emailVerified: true,
  groups: [],
  hostedDomain: undefined,
  ...over,
});

const cases: readonly {
  readonly name: string;
  readonly provider: SignInProvider;
  readonly lists: AllowLists;
  readonly claims: IdentityClaims;
  readonly expected: string;
}[] = [
  {
    name: "no list admits nobody",
    provider: "oidc",
    lists: NONE,
    claims: claims({}),
    expected: "no_allow_list",
  },
  {
    name: "listed e-mail",
    provider: "oidc",
    lists: { ...NONE, allowedEmails: ["Ada@Example.com"] },
    claims: claims({}),
    expected: "email",
  },
  {
    name: "listed e-mail, unverified",
    provider: "oidc",
    lists: { ...NONE, allowedEmails: ["ada@example.com"] },
    claims: claims({ emailVerified: false }),
    expected: "email_unverified",
  },
  {
    name: "listed domain",
    provider: "oidc",
    lists: { ...NONE, allowedDomains: ["example.com"] },
    claims: claims({}),
    expected: "domain",
  },
  {
    name: "sub-domain is not the domain",
    provider: "oidc",
    lists: { ...NONE, allowedDomains: ["example.com"] },
    claims: claims({ email: "ada@evil.example.com" }),
    expected: "not_allowed",
  },
  {
    name: "domain as a suffix of another",
    provider: "oidc",
    lists: { ...NONE, allowedDomains: ["example.com"] },
    claims: claims({ email: "ada@notexample.com" }),
    expected: "not_allowed",
  },
  {
    name: "listed group",
    provider: "oidc",
    lists: { ...NONE, allowedGroups: ["staff"] },
    claims: claims({ email: undefined, groups: ["staff"] }),
    expected: "group",
  },
  {
    name: "group names are exact",
    provider: "oidc",
    lists: { ...NONE, allowedGroups: ["staff"] },
    claims: claims({ groups: ["Staff"] }),
    expected: "not_allowed",
  },
  {
    name: "no e-mail, no group",
    provider: "oidc",
    lists: { ...NONE, allowedEmails: ["ada@example.com"] },
    claims: claims({ email: undefined }),
    expected: "not_allowed",
  },
  {
    name: "google ignores allowedGroups",
    provider: "google",
    lists: { ...NONE, allowedGroups: ["staff"] },
    claims: claims({ groups: ["staff"] }),
    expected: "no_allow_list",
  },
  {
    name: "google domain with matching hd",
    provider: "google",
    lists: { ...NONE, allowedDomains: ["example.com"] },
    claims: claims({ hostedDomain: "example.com" }),
    expected: "domain",
  },
  {
    name: "google domain without hd (consumer account)",
    provider: "google",
    lists: { ...NONE, allowedDomains: ["example.com"] },
    claims: claims({}),
    expected: "hosted_domain_mismatch",
  },
  {
    name: "google hd of another domain",
    provider: "google",
    lists: { ...NONE, allowedDomains: ["example.com"] },
    claims: claims({ hostedDomain: "other.com" }),
    expected: "hosted_domain_mismatch",
  },
  {
    name: "google listed e-mail, no domain list, no hd needed",
    provider: "google",
    lists: { ...NONE, allowedEmails: ["ada@gmail.com"] },
    claims: claims({ email: "ada@gmail.com" }),
    expected: "email",
  },
];

describe("allowListVerdict", () => {
  for (const c of cases) {
    it(c.name, () => {
      const verdict = allowListVerdict(c.provider, c.lists, c.claims);
      const got = verdict.allowed ? verdict.by : verdict.refusal;
      expect(got).toBe(c.expected);
      if (!verdict.allowed) expect(verdict.reason.length).toBeGreaterThan(10);
    });
  }
});

describe("emailDomain", () => {
  it.each([
    ["a@Example.COM", "example.com"],
    ["a@b@c.org", "c.org"],
    ["@c.org", undefined],
    ["a@", undefined],
    ["plain", undefined],
  ])("%s → %s", (email, domain) => {
    expect(emailDomain(email)).toBe(domain);
  });
});
