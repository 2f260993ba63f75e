#!/bin/sh
# run-local.sh LAVA_DIR OUT_DIR: every job `ksweep validate --lava LAVA_DIR` wrote, run on this
# machine by lava-run (Debian's lava-dispatcher, no server), each into OUT_DIR/<job name>/ in the
# layout `ksweep validate --lava-results OUT_DIR` reads: job.yaml, result.yaml, output.yaml.
# The device dictionary is lava/qemu-ksweep.jinja2 pointed at this checkout, rendered with the
# qemu device-type templates of Debian's lava-server package (downloaded, never installed).
set -eu
lava_dir=$(cd "${1:?LAVA_DIR}" && pwd)
out_dir=${2:?OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSWEEP_CACHE:-$HOME/.cache/ksweep}/lava-server
templates=$cache/x/usr/share/lava-server/device-types
if [ ! -f "$templates/qemu.jinja2" ]; then
    mkdir -p "$cache"
    (cd "$cache" && apt-get download lava-server >/dev/null && dpkg-deb -x lava-server_*.deb x)
fi
mkdir -p "$out_dir" "$cache/dict"
sed "s|/opt/ksweep|$here|" "$here/lava/qemu-ksweep.jinja2" >"$cache/dict/local.jinja2"

id=0 failed=0
for job in "$lava_dir"/jobs/*.yaml; do
    id=$((id + 1))
    name=$(basename "$job" .yaml)
    dir=$out_dir/$name
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$job" "$dir/job.yaml"
    # lava-server renders the dictionary with the job's context at scheduling; so do we.
    /usr/bin/python3 - "$cache/dict" "$templates" "$job" "$dir/device.yaml" <<'PY'
import sys, jinja2, yaml
dict_dir, templates, job, out = sys.argv[1:]
env = jinja2.Environment(loader=jinja2.FileSystemLoader([dict_dir, templates]),
                         trim_blocks=True, autoescape=False)
context = yaml.safe_load(open(job)).get("context", {})
open(out, "w").write(env.get_template("local.jinja2").render(**context))
PY
    start=$(date +%s)
    # libguestfs cannot use KVM here (REFERENCE §9).
    if LIBGUESTFS_BACKEND_SETTINGS=force_tcg lava-run --job-id "$id" --output-dir "$dir" \
        --device "$dir/device.yaml" "$dir/job.yaml" 2>"$dir/output.yaml"; then
        echo "$name: $(sed -n 's/^result: //p' "$dir/result.yaml") in $(($(date +%s) - start)) s"
    else
        echo "$name: lava-run failed (exit $?), see $dir/output.yaml"
        failed=$((failed + 1))
    fi
done
[ "$failed" = 0 ]
