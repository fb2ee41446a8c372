#!/bin/sh
# Capture Neovim with yaml-language-server (tests/editor/nvim/init.lua) in
# a tmux pane: the diagnostics of a broken schema, completion of a field's
# type and of a system's keys, and the hover text of a key. docs/editing.md
# shows its output. Needs nvim (0.7 or newer), tmux, and the server that
# tools/deps.sh installs into build/npm/.
# Usage: sh tests/editor/nvim/capture.sh [OUT]   (default build/editor/nvim-capture.txt)
set -eu
cd "$(dirname "$0")/../../.."
out=${1:-build/editor/nvim-capture.txt}
demo=build/editor/demo.yaml
session=strata-capture-$$
mkdir -p build/editor
cat >"$demo" <<'YAML'
# yaml-language-server: $schema=../../schema/strata.schema.json
world: game
version: 1
components:
  Position:
    x: float
    y: f32
systems:
  Move:
    write: [Position]
    reads: [Position]
YAML

shot() { # shot TITLE: append the pane to $out
    printf '\n== %s\n' "$1" >>"$out"
    tmux capture-pane -p -t "$session" | sed -e 's/[[:space:]]*$//' >>"$out"
}
keys() { tmux send-keys -t "$session" "$@"; sleep "${pause:-2}"; }

: >"$out"
tmux new-session -d -s "$session" -x 100 -y 24 "nvim -n -u tests/editor/nvim/init.lua $demo"
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT
sleep 8 # node starts the server; the schema loads; the diagnostics arrive
shot "diagnostics as the file opens"
keys 7G o 'z: '
keys C-x C-o
shot "completion of a field's type (after 'z: ', then Ctrl-X Ctrl-O)"
keys C-e Escape u
keys 9G o 're'
keys C-x C-o
shot "completion of a system's keys (after 're', then Ctrl-X Ctrl-O)"
keys C-e Escape u
keys 10G w ':lua vim.lsp.buf.hover()' Enter
shot "hover over 'write' (:lua vim.lsp.buf.hover(), or K where lspconfig maps it)"
keys Escape ':qa!' Enter
echo "strata: wrote $out"
