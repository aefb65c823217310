# Shared by scripts/setup.sh and scripts/dev-setup.sh (sourced, not run). Set STEP_PREFIX first.
export PIP_DISABLE_PIP_VERSION_CHECK=1
started=$SECONDS
# Prints one progress line on stderr with the seconds since the script started.
step() { printf '%s: %s (%ds)\n' "$STEP_PREFIX" "$1" $((SECONDS - started)) >&2; }
# Runs a command quietly; on failure prints its output (minus package-index location warnings) and stops.
quiet() {
    local out
    if ! out=$("$@" 2>&1); then
        printf '%s\n' "$out" | grep -v '^WARNING: Location' >&2
        return 1
    fi
}
