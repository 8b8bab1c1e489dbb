#!/usr/bin/env bash
# Stages issue #11's H200 run in the session's checkout (the device tool sends that checkout, not a
# helper's worktree): DEST/.i11/ (ignored through .git/info/exclude) gets this worktree's files, node,
# the packed app (scripts/gpu/pack.sh) and doctest's header, and go.sh, which unpacks them and runs i11.sh.
# usage: scripts/gpu/i11-stage.sh DEST   (DEST: the checkout the device tool sends, e.g. /work/main)
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=${1:?usage: i11-stage.sh DEST}
common=$(git -C "$dest" rev-parse --git-common-dir)
case "$common" in /*) ;; *) common="$dest/$common" ;; esac
mkdir -p "$common/info"
grep -qxF '/.i11/' "$common/info/exclude" 2>/dev/null || echo '/.i11/' >> "$common/info/exclude"
stage="$dest/.i11"
rm -rf "$stage" && mkdir -p "$stage"
git ls-files -co --exclude-standard -z | tar --null -T - -cf "$stage/tree.tar"
[ -s .carry/app/app.tar.xz ] || scripts/gpu/pack.sh
cp .carry/app/app.tar.xz "$stage/app.tar.xz"
[ -s "$stage/node.xz" ] || xz -T2 -6 -c "$(readlink -f "$(command -v node)")" > "$stage/node.xz"
tar -C /usr/include -cf "$stage/doctest.tar" doctest
cat > "$stage/go.sh" <<'GO'
#!/usr/bin/env bash
# On the GPU host: unpack the staged worktree into /tmp/w and run scripts/gpu/i11.sh there.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
w=/tmp/w; mkdir -p $w/.gpu/bin $w/.carry
tar -xf "$here/tree.tar" -C $w
python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$here/node.xz" $w/.gpu/bin/node && chmod +x $w/.gpu/bin/node
python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' "$here/app.tar.xz" $w/.gpu/app.tar
tar -xf $w/.gpu/app.tar -C $w && rm -f $w/.gpu/app.tar
if [ -f $w/addon/nh_nvml.node ]; then mkdir -p $w/native/addon/build/Release && mv $w/addon/nh_nvml.node $w/native/addon/build/Release/ && rmdir $w/addon; fi
tar -xf "$here/doctest.tar" -C $w/.carry
cd $w && bash scripts/gpu/i11.sh "$@"
GO
du -sh "$stage"/*
