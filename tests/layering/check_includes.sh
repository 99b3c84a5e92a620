#!/usr/bin/env bash
# The include rules of docs/architecture.md, checked over the source tree:
#   - detail/wire includes nothing of refwire but detail/wire;
#   - detail/core includes no format (binary, json, protobuf) and nothing of rpc or transports;
#   - a format's folder (detail/binary, detail/json, detail/protobuf) and its sources never
#     include another format (public header or detail folder);
#   - serialize.hpp and format.hpp include no concrete format; formats.hpp includes all of them;
#   - transports (and their tests) include nothing of serialization or rpc, and their public headers
#     no Boost.Asio; rpc never includes a format's detail headers;
#   - rpc's wire protocol (detail/protocol.hpp, src/protocol.cpp, src/status.cpp) is pure bytes: no
#     format, no serialize entry point, nothing of transports (only options.hpp and detail/wire).
# Usage: check_includes.sh <repository root>. Prints each violation; exits 1 if there is any.
set -euo pipefail
root=${1:?usage: check_includes.sh <repository root>}
inc=$root/serialization/include/refwire/serialization
src=$root/serialization/src
formats=(binary json protobuf)
bad=0

# includes <file>: the refwire headers a file includes, one per line (without refwire/).
# Both spellings count: <refwire/...> and "refwire/...".
includes() { sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]refwire/\([^>"]*\)[>"].*|\1|p' "$1"; }

violation() {
  echo "include rule broken: $1 includes <refwire/$2> ($3)"
  bad=1
}

for f in "$inc"/detail/wire/*.hpp "$src"/wire/*.cpp; do
  [[ -e $f ]] || continue
  while read -r h; do
    [[ -z $h ]] && continue
    [[ $h == serialization/detail/wire/* ]] || violation "${f#"$root"/}" "$h" "detail/wire is the bottom layer"
  done < <(includes "$f")
done

for f in "$inc"/detail/core/*.hpp "$src"/core/*.cpp; do
  [[ -e $f ]] || continue
  while read -r h; do
    [[ -z $h ]] && continue
    for fmt in "${formats[@]}"; do
      if [[ $h == serialization/$fmt.hpp || $h == serialization/detail/$fmt/* ]]; then
        violation "${f#"$root"/}" "$h" "detail/core serves every format and includes none"
      fi
    done
    [[ $h == rpc* || $h == transports* ]] && violation "${f#"$root"/}" "$h" "serialization does not know rpc"
  done < <(includes "$f")
done

for fmt in "${formats[@]}"; do
  files=("$inc/$fmt.hpp")
  for d in "$inc/detail/$fmt" "$src/$fmt"; do
    [[ -d $d ]] && while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$d" -type f -print0)
  done
  [[ -f $src/$fmt.cpp ]] && files+=("$src/$fmt.cpp")
  for f in "${files[@]}"; do
    [[ -e $f ]] || continue
    while read -r h; do
      [[ -z $h ]] && continue
      for other in "${formats[@]}"; do
        [[ $other == "$fmt" ]] && continue
        if [[ $h == serialization/$other.hpp || $h == serialization/detail/$other/* || $h == serialization/formats.hpp ]]; then
          violation "${f#"$root"/}" "$h" "a format never includes another format"
        fi
      done
    done < <(includes "$f")
  done
done

for f in "$inc/serialize.hpp" "$inc/format.hpp"; do
  while read -r h; do
    for fmt in "${formats[@]}"; do
      [[ $h == serialization/$fmt.hpp || $h == serialization/formats.hpp ]] &&
        violation "${f#"$root"/}" "$h" "the entry points and the concept include no concrete format"
    done
  done < <(includes "$f")
done
for fmt in "${formats[@]}"; do
  grep -q "#include <refwire/serialization/$fmt.hpp>" "$inc/formats.hpp" ||
    { echo "include rule broken: formats.hpp does not include <refwire/serialization/$fmt.hpp>"; bad=1; }
done

# The transports' tests are held to the transports' rule too: they use nothing above it.
for d in "$root/transports" "$root/tests/transports" "$root/rpc"; do
  [[ -d $d ]] || continue
  while IFS= read -r -d '' f; do
    while read -r h; do
      [[ -z $h ]] && continue
      if [[ $d == */transports && ( $h == serialization* || $h == rpc* ) ]]; then
        violation "${f#"$root"/}" "$h" "transports move bytes and know nothing of serialization or rpc"
      fi
      if [[ $d == */rpc ]]; then
        for fmt in "${formats[@]}"; do
          [[ $h == serialization/detail/$fmt/* ]] &&
            violation "${f#"$root"/}" "$h" "rpc uses formats through formats.hpp and the public API"
        done
      fi
    done < <(includes "$f")
  done < <(find "$d" -type f \( -name '*.hpp' -o -name '*.cpp' \) -print0)
done

# Boost.Asio stays in transports/src: the public headers forward-declare io_context.
if [[ -d $root/transports/include ]]; then
  while IFS= read -r -d '' f; do
    if grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]boost/asio' "$f"; then
      echo "include rule broken: ${f#"$root"/} includes Boost.Asio (keep asio in transports/src)"
      bad=1
    fi
  done < <(find "$root/transports/include" -type f -name '*.hpp' -print0)
fi

for f in "$root/rpc/include/refwire/rpc/detail/protocol.hpp" "$root/rpc/src/protocol.cpp" "$root/rpc/src/status.cpp"; do
  [[ -e $f ]] || continue
  while read -r h; do
    [[ -z $h ]] && continue
    case $h in
      rpc/status.hpp | rpc/detail/protocol.hpp | serialization/options.hpp | serialization/detail/wire/*) ;;
      *) violation "${f#"$root"/}" "$h" "the wire protocol is pure bytes: no formats, no transports" ;;
    esac
  done < <(includes "$f")
done

if [[ $bad -eq 0 ]]; then echo "include rules hold"; fi
exit "$bad"
