#!/bin/sh
# Remove what tools/install.sh installed under $DESTDIR$PREFIX: the files its
# manifest lists, the manifest, then the directories the install created,
# deepest first, where they are now empty. Nothing else is touched.
# Usage: [PREFIX=/usr/local] [DESTDIR=] sh tools/uninstall.sh
set -eu

tools=$(cd "$(dirname "$0")" && pwd)
. "$tools/install-common.sh"

if [ ! -f "$DESTDIR$MANIFEST" ]; then
    echo "strata: nothing to uninstall: no $DESTDIR$MANIFEST"
    exit 0
fi

# A damaged or hand-edited manifest must not reach outside PREFIX: files
# lie under it; directories too, or are PREFIX or its parents (created by the
# install when they were missing; rmdir removes them only if empty).
inside() {
    case $1 in
    *"/../"* | *"/..") return 1 ;;
    "$PREFIX"/*) return 0 ;;
    esac
    [ "$2" = dir ] && case $PREFIX/ in "$1"/*) return 0 ;; esac
    return 1
}

# Read it all before removing anything; directories in reverse order of creation.
files=$(sed -n 's/^file //p' "$DESTDIR$MANIFEST")
dirs=$(sed -n 's/^dir //p' "$DESTDIR$MANIFEST" | sed -n '1!G;h;$p')

newline='
'
set -f # split the lists at newlines only, and expand no patterns
IFS=$newline
for f in $files; do
    if ! inside "$f" file; then
        echo "strata: skipped '$f': not under $PREFIX" >&2
    elif [ -f "$DESTDIR$f" ] || [ -L "$DESTDIR$f" ]; then
        rm -f "$DESTDIR$f"
        echo "strata: removed $DESTDIR$f"
    fi
done
rm -f "$DESTDIR$MANIFEST"
for d in $dirs; do
    if ! inside "$d" dir; then
        echo "strata: skipped '$d': not under $PREFIX" >&2
    elif [ -d "$DESTDIR$d" ]; then
        if rmdir "$DESTDIR$d" 2>/dev/null; then
            echo "strata: removed $DESTDIR$d/"
        else
            echo "strata: kept $DESTDIR$d/: not empty"
        fi
    fi
done
unset IFS
set +f
echo "strata: uninstalled Strata from $DESTDIR$PREFIX"
