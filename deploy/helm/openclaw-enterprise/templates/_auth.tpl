{{/*
Sign-in (`auth.*`) and the refused `agentNativeAdmin`: the rules that span keys, the
Installation configuration's `auth` section, the API's Secret volumes and its egress to the
providers. values.schema.json checks the shapes; every refusal here names the key.
*/}}

{{/* The external providers, in the order their rules are checked. */}}
{{- define "occ.signInProviders" -}}google oidc{{- end -}}

{{/* "true" when auth.google or auth.oidc is enabled. */}}
{{- define "occ.anySignInProvider" -}}
{{- $a := .Values.auth -}}
{{- if or $a.google.enabled $a.oidc.enabled }}true{{ end -}}
{{- end -}}

{{- define "occ.validateAuth" -}}
{{- $v := .Values -}}
{{- $a := $v.auth -}}
{{- range $name := splitList " " (include "occ.signInProviders" .) }}
{{- $p := index $a $name -}}
{{- if $p.enabled }}
{{- if not $a.recoveryUserId }}
{{- fail (printf "auth.%s.enabled requires auth.recoveryUserId (the break-glass principal, prn_..., that may always sign in with a password)" $name) }}
{{- end }}
{{- if not (hasPrefix "https://" $a.baseUrl) }}
{{- fail (printf "auth.%s.enabled requires auth.baseUrl to be an https:// URL (the URL people open; the provider redirects back to it), not %q" $name $a.baseUrl) }}
{{- end }}
{{- if not $a.secretName }}
{{- fail (printf "auth.%s.enabled requires auth.secretName (the Secret holding the session signing key, shared by every API replica)" $name) }}
{{- end }}
{{- if not $p.clientSecretName }}
{{- fail (printf "auth.%s.clientSecretName is required when auth.%s.enabled is true (the Secret holding the client ID and the client secret)" $name $name) }}
{{- end }}
{{- if eq $p.clientIdKey $p.clientSecretKey }}
{{- fail (printf "auth.%s.clientIdKey and auth.%s.clientSecretKey must differ (both are %q): they name two keys of auth.%s.clientSecretName, mounted as two files" $name $name $p.clientIdKey $name) }}
{{- end }}
{{- if and (eq $name "oidc") (not (hasPrefix "https://" $p.issuer)) }}
{{- fail (printf "auth.oidc.issuer must be an https:// URL when auth.oidc.enabled is true, not %q" $p.issuer) }}
{{- end }}
{{- if $v.agentNativeAdmin.enabled }}
{{- fail (printf "auth.%s.enabled requires agentNativeAdmin.enabled: false" $name) }}
{{- end }}
{{- if and $v.networkPolicy.enabled (not $p.egressCidrs) }}
{{- fail (printf "auth.%s.egressCidrs must list at least one CIDR when auth.%s.enabled and networkPolicy.enabled are true (the API pods' egress to the provider)" $name $name) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and (hasPrefix "http://" $a.baseUrl) (not (regexMatch "^(localhost|127\\.[0-9]+\\.[0-9]+\\.[0-9]+|::1)$" (urlParse $a.baseUrl).hostname)) }}
{{- fail (printf "auth.baseUrl: http:// is allowed only on a loopback host (localhost, 127.x.x.x, [::1]), not %q; use https://" $a.baseUrl) }}
{{- end }}
{{- if and (eq $a.passwordSignIn "recovery-only") (not (include "occ.anySignInProvider" .)) }}
{{- fail "auth.passwordSignIn: recovery-only requires auth.google.enabled or auth.oidc.enabled: true (otherwise only auth.recoveryUserId could ever sign in); set auth.passwordSignIn: all or enable a provider" }}
{{- end }}
{{- if $v.agentNativeAdmin.enabled }}
{{- fail "agentNativeAdmin.enabled: true is not supported by this release: OCC has no browser surface for Agent gateways (the key exists only so that upstream values install); set agentNativeAdmin.enabled: false" }}
{{- end }}
{{- end -}}

{{/*
The preprovisioned profile's sign-in conditions, as the seed states them: auth.passwordSignIn:
all, with auth.google and auth.oidc and agentNativeAdmin disabled.
*/}}
{{- define "occ.validatePreprovisionedAuth" -}}
{{- $v := .Values -}}
{{- if ne $v.auth.passwordSignIn "all" }}
{{- fail (printf "preprovisionedNamespace requires auth.passwordSignIn: all (not %s)" $v.auth.passwordSignIn) }}
{{- end }}
{{- range $name := splitList " " (include "occ.signInProviders" .) }}
{{- if (index $v.auth $name).enabled }}
{{- fail (printf "preprovisionedNamespace requires auth.%s disabled: set auth.%s.enabled: false" $name $name) }}
{{- end }}
{{- end }}
{{- if $v.agentNativeAdmin.enabled }}
{{- fail "preprovisionedNamespace requires agentNativeAdmin disabled: set agentNativeAdmin.enabled: false" }}
{{- end }}
{{- end -}}

{{/*
Sets the Installation configuration's `auth` section on the document (dict "root" . "doc" $doc).
Nothing set beyond the defaults (password sign-in for everyone, no provider, no key Secret) →
no section, which the API reads as exactly that.
*/}}
{{- define "occ.setAuthConfig" -}}
{{- $a := .root.Values.auth -}}
{{- $auth := dict -}}
{{- if $a.baseUrl }}
{{- $_ := set $auth "baseUrl" $a.baseUrl -}}
{{- end }}
{{- if $a.secretName }}
{{- $_ := set $auth "sessionKeyFile" (printf "/etc/occ/auth/session/%s" $a.secretKey) -}}
{{- end }}
{{- if $a.recoveryUserId }}
{{- $_ := set $auth "recoveryUserId" $a.recoveryUserId -}}
{{- end }}
{{- range $name := splitList " " (include "occ.signInProviders" .root) }}
{{- $p := index $a $name -}}
{{- if $p.enabled }}
{{- $dir := printf "/etc/occ/auth/%s" $name -}}
{{- $c := dict "clientIdFile" (printf "%s/%s" $dir $p.clientIdKey) "clientSecretFile" (printf "%s/%s" $dir $p.clientSecretKey) "allowedEmails" $p.allowedEmails "allowedDomains" $p.allowedDomains -}}
{{- if eq $name "oidc" }}
{{- $_ := set $c "issuer" $p.issuer -}}
{{- if $p.displayName }}
{{- $_ := set $c "displayName" $p.displayName -}}
{{- end }}
{{- $_ := set $c "allowedGroups" $p.allowedGroups -}}
{{- $_ := set $c "groupRoles" $p.groupRoles -}}
{{- end }}
{{- $_ := set $auth $name $c -}}
{{- end }}
{{- end }}
{{- if $auth }}
{{- $_ := set $auth "passwordSignIn" $a.passwordSignIn -}}
{{- $_ := set .doc "auth" $auth -}}
{{- end }}
{{- end -}}

{{/* The API container's read-only mounts of the sign-in Secrets (none when unused). */}}
{{- define "occ.authVolumeMounts" -}}
{{- $a := .Values.auth -}}
{{- if $a.secretName }}
- { name: auth-session, mountPath: /etc/occ/auth/session, readOnly: true }
{{- end }}
{{- range $name := splitList " " (include "occ.signInProviders" .) }}
{{- if (index $a $name).enabled }}
- { name: auth-{{ $name }}, mountPath: /etc/occ/auth/{{ $name }}, readOnly: true }
{{- end }}
{{- end }}
{{- if include "occ.oidcCa" . }}
- { name: auth-oidc-ca, mountPath: /etc/occ/auth/oidc-ca, readOnly: true }
{{- end }}
{{- end -}}

{{/* "true" when auth.oidc is enabled with a private CA (auth.oidc.caSecretName). */}}
{{- define "occ.oidcCa" -}}
{{- $p := .Values.auth.oidc -}}
{{- if and $p.enabled $p.caSecretName }}true{{ end -}}
{{- end -}}

{{/* The API container's environment for sign-in: the OIDC issuer's private CA, if any. */}}
{{- define "occ.authEnv" -}}
{{- if include "occ.oidcCa" . }}
- name: NODE_EXTRA_CA_CERTS
  value: {{ printf "/etc/occ/auth/oidc-ca/%s" .Values.auth.oidc.caKey | quote }}
{{- end }}
{{- end -}}

{{/* The API pod's sign-in Secret volumes: only the keys the configuration names. */}}
{{- define "occ.authVolumes" -}}
{{- $a := .Values.auth -}}
{{- if $a.secretName }}
- name: auth-session
  secret:
    secretName: {{ $a.secretName | quote }}
    items: [{ key: {{ $a.secretKey | quote }}, path: {{ $a.secretKey | quote }} }]
    defaultMode: 288 # 0440: the owner and the pod's fsGroup
{{- end }}
{{- range $name := splitList " " (include "occ.signInProviders" .) }}
{{- $p := index $a $name -}}
{{- if $p.enabled }}
- name: auth-{{ $name }}
  secret:
    secretName: {{ $p.clientSecretName | quote }}
    items:
      - { key: {{ $p.clientIdKey | quote }}, path: {{ $p.clientIdKey | quote }} }
      - { key: {{ $p.clientSecretKey | quote }}, path: {{ $p.clientSecretKey | quote }} }
    defaultMode: 288 # 0440
{{- end }}
{{- end }}
{{- if include "occ.oidcCa" . }}
- name: auth-oidc-ca
  secret:
    secretName: {{ $a.oidc.caSecretName | quote }}
    items: [{ key: {{ $a.oidc.caKey | quote }}, path: {{ $a.oidc.caKey | quote }} }]
    defaultMode: 292 # 0444: certificates, not secrets
{{- end }}
{{- end -}}

{{/*
The API pods' egress to each enabled provider: its egressCidrs, on TCP 443 (auth.oidc: the
issuer URL's port when it names one).
*/}}
{{- define "occ.egressSignInProviders" -}}
{{- $a := .Values.auth -}}
{{- range $name := splitList " " (include "occ.signInProviders" .) }}
{{- $p := index $a $name -}}
{{- if and $p.enabled $p.egressCidrs }}
{{- $port := "443" -}}
{{- if eq $name "oidc" }}
{{- $explicit := regexFind ":[0-9]+$" (urlParse $p.issuer).host -}}
{{- if $explicit }}
{{- $port = trimPrefix ":" $explicit -}}
{{- end }}
{{- end }}
# auth.{{ $name }}: sign-in through the provider
- to:
    {{- range $p.egressCidrs }}
    - ipBlock:
        cidr: {{ . | quote }}
    {{- end }}
  ports:
    - { protocol: TCP, port: {{ $port }} }
{{- end }}
{{- end }}
{{- end -}}
