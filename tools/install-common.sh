# Sourced by tools/install.sh and tools/uninstall.sh, so that both read the
# environment alike: PREFIX (absolute, default /usr/local) and DESTDIR (a
# staging root put in front of every path; a relative one is taken from the
# current directory). MANIFEST is where the install records what it wrote.

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
case $PREFIX in
/*) ;;
*)
    echo "strata: PREFIX must be an absolute path, not '$PREFIX'" >&2
    exit 1
    ;;
esac
case $DESTDIR in
"" | /*) ;;
*) DESTDIR=$(pwd)/$DESTDIR ;;
esac
# Without trailing slashes, so that "$PREFIX/lib" is spelt one way ("/" is "").
PREFIX=$(printf '%s\n' "$PREFIX" | sed 's|/*$||')
DESTDIR=$(printf '%s\n' "$DESTDIR" | sed 's|/*$||')
MANIFEST=$PREFIX/share/strata/install-manifest.txt
