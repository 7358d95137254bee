# Without the bash-completion package: the one function of it this script needs.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    while [[ $# -gt 0 && $1 == -* ]]; do
        [[ $1 == -n || $1 == -i || $1 == -w ]] && shift
        shift
    done
    local v
    for v in "$@"; do
        case $v in
            cur) cur=${COMP_WORDS[COMP_CWORD]} ;;
            prev) prev=${COMP_WORDS[COMP_CWORD-1]} ;;
            words) words=("${COMP_WORDS[@]}") ;;
            cword) cword=$COMP_CWORD ;;
        esac
    done
}
fi

