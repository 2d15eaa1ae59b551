#!/usr/bin/env bash
# Acceptance walk: taking over a name another account holds by proving control in DNS.
# Needs a running local service (`domain-desk serve --memory --clock-speed 0`), curl, jq, dig.
#   API=127.0.0.1:8787 DNS_PORT=8853 bash tests/acceptance/ownership.sh
set -euo pipefail
API=${API:-127.0.0.1:8787}
DNS_PORT=${DNS_PORT:-8853}
HOST=${HOST_TO_MOVE:-moved.example.com}

info=$(curl -sf "http://$API/_local/info")
pro=$(jq -r .demo_keys.pro <<<"$info")
business=$(jq -r .demo_keys.business <<<"$info")
call() { # key method path [json]
  curl -s -X "$2" "http://$API$3" -H "Authorization: Bearer $1" \
    -H 'Content-Type: application/json' ${4:+-d "$4"}
}
project() { # key name -> id of a new deployed project
  local id
  id=$(call "$1" POST /v1/projects "{\"name\":\"$2\"}" | jq -r .id)
  call "$1" POST "/v1/projects/$id/deploys" '{"files":{"index.html":"hi"}}' >/dev/null
  echo "$id"
}
fail() { echo "FAIL: $*" >&2; exit 1; }

holder=$(project "$pro" holder)
claimer=$(project "$business" claimer)
call "$pro" POST "/v1/projects/$holder/domains" "{\"hostname\":\"$HOST\"}" | jq -e '.hostname' >/dev/null

refusal=$(call "$business" POST "/v1/projects/$claimer/domains" "{\"hostname\":\"$HOST\"}")
[ "$(jq -r .error.code <<<"$refusal")" = domain_taken ] || fail "expected domain_taken: $refusal"
name=$(jq -r .error.ownership_challenge.name <<<"$refusal")
fqdn=$(jq -r .error.ownership_challenge.fqdn <<<"$refusal")
value=$(jq -r .error.ownership_challenge.value <<<"$refusal")
echo "challenge: TXT $fqdn \"$value\""

curl -sf -X POST "http://$API/_local/dns/example.com/records" -H 'Content-Type: application/json' \
  -d "{\"name\":\"$name\",\"type\":\"TXT\",\"value\":\"$value\"}" >/dev/null
dig +short -p "$DNS_PORT" @127.0.0.1 TXT "$fqdn" | grep -qF "$value" || fail "TXT not served"
curl -sf -X POST "http://$API/_local/clock/advance" -H 'Content-Type: application/json' \
  -d '{"seconds": 61}' >/dev/null

moved=$(call "$business" POST "/v1/projects/$claimer/domains" "{\"hostname\":\"$HOST\"}")
[ "$(jq -r .project_id <<<"$moved")" = "$claimer" ] || fail "not moved: $moved"
gone=$(call "$pro" GET "/v1/projects/$holder/domains/$HOST")
[ "$(jq -r .error.removal.reason <<<"$gone")" = ownership_transferred ] || fail "no reason: $gone"
call "$pro" GET "/v1/projects/$holder/removed_domains" | jq -e ".removed_domains[0].hostname == \"$HOST\"" >/dev/null \
  || fail "not listed as removed"
echo "ok: $HOST moved to the account that proved control"
