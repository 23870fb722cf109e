#!/usr/bin/env bash
# `npm run test:deployed`: the deployed tests. Builds the image (`npm run image`), creates a
# network namespace for the run, and runs the vitest project `deployed` inside it: its global
# setup (test/harness/node/) starts PostgreSQL, etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, containerd, the kubelet, kube-proxy and the CNI bridge there, so the bridge,
# its addresses, iptables chains and network sysctls live and die with the namespace, and no
# traffic leaves it. Then, whatever happened, it tears the rest down (processes, cgroups, pod
# network namespaces, the /run/netns mount and folder `ip netns add` made, kernel sysctls the
# kubelet set, CNI state, log links, the run folder), and runs test/deployed/leftovers.test.ts on
# the host, which asserts that nothing of the run is left.
#
# The previous release's image (tools/previous-release.sh) is built next to it, cached by commit.
#
# Extra arguments go to the first vitest run (a file filter, say). OCC_DEPLOYED_REPORT=<file>
# writes vitest's JSON reports there (tools/test.sh counts them); OCC_KEEP_TEST_DIR keeps the
# run folder (logs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
start=$SECONDS
[ "$(id -u)" -eq 0 ] || { echo "test-deployed: the node needs root (containerd, kubelet)" >&2; exit 1; }
# The tests run on the pinned Node.js release (tools/node.sh) when prereqs.sh installed it.
. tools/node.sh
occ_node_use "$root" || echo "test-deployed: .tools/node has no Node.js $OCC_NODE_VERSION (bash tools/prereqs.sh); running on $(node --version)" >&2
bash tools/image.sh
# The previous release's image (deploy/previous-release), for test/deployed/upgrade.test.ts:
# built here, where the network is the host's, and cached by commit.
bash tools/previous-release.sh

id=$(head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n')
ns="occ-deployed-$id"
run=$(mktemp -d /tmp/occ-deployed-XXXXXX)
chmod 711 "$run"
manifest="$run.manifest.json"
# The sysctls the kubelet sets (kernel-wide, not per network namespace), restored at the end.
kernel_sysctls=(kernel.panic kernel.panic_on_oops vm.overcommit_memory vm.panic_on_oom
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
declare -A before
for s in "${kernel_sysctls[@]}"; do before[$s]=$(sysctl -n "$s"); done
netns_before=$( (ls /run/netns 2>/dev/null || true) | sort | tr "\n" " ")
# `ip netns add` creates /run/netns when absent and bind-mounts it onto itself (a shared mount
# point); `ip netns del` leaves both. How the host had them, to restore exactly that.
netns_dir=/run/netns
netns_mounts() { awk -v d="$netns_dir" '$5 == d' /proc/self/mountinfo | wc -l; }
netns_mounts_before=$(netns_mounts)
netns_dir_existed=false
[ -d "$netns_dir" ] && netns_dir_existed=true
# Fixed host folders containerd, CNI and the kubelet create; those absent now are removed again.
fixed_dirs=(/run/containerd /var/lib/cni /var/log/containers /var/log/pods)
absent_dirs=()
for d in "${fixed_dirs[@]}"; do [ -e "$d" ] || absent_dirs+=("$d"); done

teardown() {
  local status=$?
  set +e
  # Every process of the run: those in its network namespace (the components, the shims) and
  # those in the pods' cgroups (the containers, in network namespaces of their own).
  local pids=() p
  pids+=($(ip netns pids "$ns" 2>/dev/null))
  for f in $(find /sys/fs/cgroup -path '*/kubepods*' -name cgroup.procs 2>/dev/null); do
    pids+=($(cat "$f" 2>/dev/null))
  done
  # Those the harness recorded before its own teardown, then those still here.
  local recorded=($(cat "$run.processes" 2>/dev/null))
  rm -f "$run.processes"
  for p in "${pids[@]}"; do
    recorded+=("$p:$(awk '{print $22}' "/proc/$p/stat" 2>/dev/null)")
  done
  [ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null
  for _ in $(seq 50); do
    local alive=0
    for p in "${pids[@]}"; do [ -d "/proc/$p" ] && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.2
  done
  [ ${#pids[@]} -eq 0 ] || kill -KILL "${pids[@]}" 2>/dev/null
  sleep 0.5
  # The pods' network namespaces containerd made, then the run's own.
  for n in $(ls /run/netns 2>/dev/null); do
    case " $netns_before " in *" $n "*) ;; *) case $n in cni-*) ip netns del "$n" 2>/dev/null ;; esac ;; esac
  done
  ip netns del "$ns" 2>/dev/null
  # The /run/netns mount and folder the run's `ip netns add` made, and only those: an unmount
  # that fails (another network namespace still mounted there) is left for the leftovers test.
  local extra=$(($(netns_mounts) - netns_mounts_before))
  while [ "$extra" -gt 0 ] && umount "$netns_dir"; do extra=$((extra - 1)); done
  [ "$netns_dir_existed" = true ] || rmdir "$netns_dir" 2>/dev/null
  # The pods' cgroups, deepest first (empty now that their processes are gone).
  find /sys/fs/cgroup -depth -type d -path '*/kubepods*' -exec rmdir {} \; 2>/dev/null
  for s in "${kernel_sysctls[@]}"; do sysctl -qw "$s=${before[$s]}" >/dev/null; done
  # What the kubelet and CNI keep in fixed host paths: log links and CNI result caches.
  find /var/log/containers -maxdepth 1 -lname "$run/*" -delete 2>/dev/null
  rm -rf /var/lib/cni/results/"$ns"-* /var/lib/cni/networks/"$ns" 2>/dev/null
  # Mounts were made in the run's own mount namespace (gone with its last process); any that
  # reached the host's are unmounted.
  grep -F " $run/" /proc/self/mountinfo | awk '{print $5}' | sort -r | xargs -r -n1 umount -l
  for d in "${absent_dirs[@]}"; do
    [ -d "$d" ] && find "$d" -depth -type d -empty -delete 2>/dev/null
  done
  NETNS_MOUNTS_BEFORE="$netns_mounts_before" NETNS_DIR_EXISTED="$netns_dir_existed" node -e '
    const [file, ns, run, pids, absent, ...sysctls] = process.argv.slice(1);
    const before = Object.fromEntries(sysctls.map((s) => s.split("=")));
    const processes = pids.split(" ").filter(Boolean).map((p) => {
      const [pid, start] = p.split(":");
      return { pid: Number(pid), start };
    });
    require("fs").writeFileSync(file, JSON.stringify({ ns, run, processes, sysctls: before,
      absentDirs: absent.split(" ").filter(Boolean),
      netnsMountsBefore: Number(process.env.NETNS_MOUNTS_BEFORE), netnsDirExisted: process.env.NETNS_DIR_EXISTED === "true", kept: process.env.OCC_KEEP_TEST_DIR !== undefined && process.env.OCC_KEEP_TEST_DIR !== "" }, null, 2));
  ' "$manifest" "$ns" "$run" "${recorded[*]}" "${absent_dirs[*]}" $(for s in "${kernel_sysctls[@]}"; do echo "$s=${before[$s]}"; done)
  if [ -z "${OCC_KEEP_TEST_DIR:-}" ]; then rm -rf "$run"; else echo "test-deployed: logs kept in $run"; fi
  # Leftovers: a test on the host, after everything above.
  local left=0
  OCC_DEPLOYED_MANIFEST="$manifest" npx vitest run --project deployed-leftovers \
    "${leftover_reporters[@]}" || left=$?
  rm -f "$manifest"
  echo "test-deployed: image, node and deployed tests took $((SECONDS - start)) s"
  [ $status -ne 0 ] || status=$left
  exit "$status"
}

reporters=(--reporter=default)
leftover_reporters=(--reporter=default)
if [ -n "${OCC_DEPLOYED_REPORT:-}" ]; then
  reporters+=(--reporter=json "--outputFile.json=$OCC_DEPLOYED_REPORT")
  leftover_reporters+=(--reporter=json "--outputFile.json=$OCC_DEPLOYED_REPORT.leftovers")
fi

ip netns add "$ns"
trap teardown EXIT
ip -n "$ns" link set lo up
# Only the network namespace is entered (`ip netns exec` would remount /sys and hide the cgroup
# hierarchies the kubelet needs); a private mount namespace keeps the node's mounts off the host.
nsenter --net="/run/netns/$ns" unshare --mount --propagation slave -- \
  env OCC_DEPLOYED_NETNS="$ns" OCC_DEPLOYED_RUN_DIR="$run" \
  npx vitest run --project deployed "${reporters[@]}" "$@"
