{{/*
Names and labels shared by every object of the release.
*/}}
{{- define "occ.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "occ.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "occ.labels" -}}
{{ include "occ.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "occ.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
Annotations of every pod template of the chart. kube-score's container-image-pull-policy asks for
imagePullPolicy Always so that a tag moved to another image is pulled again; an image pinned by
digest (image.digest) cannot move, so IfNotPresent runs exactly the image Always would: the check
is moot and ignored, and the rendered annotation says why.
*/}}
{{- define "occ.podAnnotations" -}}
{{- if .Values.image.digest -}}
# The image is pinned by digest (image.digest): IfNotPresent runs the same image as Always.
kube-score/ignore: container-image-pull-policy
{{- end }}
{{- end -}}

{{/* "true" when the preprovisioned profile is selected (preprovisionedNamespace is not null). */}}
{{- define "occ.preprovisioned" -}}
{{- if not (kindIs "invalid" .Values.preprovisionedNamespace) }}true{{ end -}}
{{- end -}}

{{/*
The preprovisioned Kubernetes namespace name: "oce-" + the first 15 hex characters of
SHA-256(namespaceId) (placement.md §1).
*/}}
{{- define "occ.preprovisionedNamespaceName" -}}
{{- printf "oce-%s" (.Values.preprovisionedNamespace.namespaceId | sha256sum | trunc 15) -}}
{{- end -}}

{{/* The gateway membership value: first 12 hex of SHA-256("<release namespace>/<gatewayName>"). */}}
{{- define "occ.gatewayMembership" -}}
{{- printf "%s/%s" .Release.Namespace .Values.gatewayRouting.gatewayName | sha256sum | trunc 12 -}}
{{- end -}}

{{/*
One NetworkPolicy peer list from values peers: {namespace, podLabels} or {cidr}.
Called with (list $peers "<values key>").
*/}}
{{- define "occ.peers" -}}
{{- $peers := index . 0 -}}
{{- $key := index . 1 -}}
{{- range $i, $p := $peers }}
{{- if and $p.cidr $p.namespace }}
{{- fail (printf "%s[%d]: set either cidr or namespace (with podLabels), not both" $key $i) }}
{{- else if $p.cidr }}
- ipBlock:
    cidr: {{ $p.cidr | quote }}
{{- else if $p.namespace }}
- namespaceSelector:
    matchLabels:
      kubernetes.io/metadata.name: {{ $p.namespace | quote }}
  podSelector:
    matchLabels: {{- toYaml (default (dict) $p.podLabels) | nindent 6 }}
{{- else }}
{{- fail (printf "%s[%d]: set cidr or namespace" $key $i) }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The container security context every pod of the chart runs with (Pod Security "restricted"). */}}
{{- define "occ.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The image's own user 10001:10001; IDs above 10000 stay clear of the node's own users. */}}
{{- define "occ.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The database URL, from the existing Secret named in values. */}}
{{- define "occ.databaseEnv" -}}
- name: OCC_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.existingSecret.name | quote }}
      key: {{ .Values.database.existingSecret.key | quote }}
{{- end -}}

{{/* Environment of the API and the worker. */}}
{{- define "occ.processEnv" -}}
{{ include "occ.databaseEnv" . }}
- name: OCC_CONFIG_PATH
  value: /etc/occ/config/installation.yaml
{{- if include "occ.preprovisioned" . }}
- name: OCC_PREPROVISIONED_NAMESPACE
  value: {{ dict "namespaceId" .Values.preprovisionedNamespace.namespaceId "uid" .Values.preprovisionedNamespace.uid | toJson | quote }}
{{- end }}
{{- end -}}

{{/* Egress rules every pod of the chart needs: DNS, and the database. */}}
{{- define "occ.egressDnsAndDatabase" -}}
- to:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: {{ .Values.network.dns.namespace | quote }}
      podSelector:
        matchLabels: {{- toYaml (default (dict) .Values.network.dns.podLabels) | nindent 10 }}
  # Cluster DNS pods listen on 53, or on 5353 behind the Service (as on OpenShift).
  ports:
    - { protocol: UDP, port: 53 }
    - { protocol: TCP, port: 53 }
    - { protocol: UDP, port: 5353 }
    - { protocol: TCP, port: 5353 }
- to:
    {{- include "occ.peers" (list .Values.database.egress.peers "database.egress.peers") | trim | nindent 4 }}
  ports:
    - { protocol: TCP, port: {{ .Values.database.egress.port }} }
{{- end -}}

{{/* Egress to the Kubernetes API server (the API and the worker). */}}
{{- define "occ.egressKubernetesApi" -}}
- to:
    {{- range .Values.kubernetesApi.cidrs }}
    - ipBlock:
        cidr: {{ . | quote }}
    {{- end }}
  ports:
    {{- range .Values.kubernetesApi.ports }}
    - { protocol: TCP, port: {{ . }} }
    {{- end }}
{{- end -}}

{{/*
A component's pod affinity: `<component>.affinity` when set, else a soft (preferred) pod
anti-affinity by hostname, so the replicas spread over nodes when they can and a one-node
cluster still schedules them all. Called with (list . "api") or (list . "worker").
*/}}
{{- define "occ.affinity" -}}
{{- $root := index . 0 -}}
{{- $component := index . 1 -}}
{{- $own := (index $root.Values $component).affinity -}}
{{- if $own -}}
{{- toYaml $own -}}
{{- else -}}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "occ.selectorLabels" $root | nindent 12 }}
            app.kubernetes.io/component: {{ $component }}
{{- end -}}
{{- end -}}
