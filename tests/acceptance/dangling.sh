#!/usr/bin/env bash
# Acceptance walk: removing a domain whose CNAME still points at the platform names the record
# to delete. Needs a running local service (`domain-desk serve --memory --clock-speed 0`),
# curl, jq, dig.   API=127.0.0.1:8787 DNS_PORT=8853 bash tests/acceptance/dangling.sh
set -euo pipefail
API=${API:-127.0.0.1:8787}
DNS_PORT=${DNS_PORT:-8853}
LABEL=${LABEL:-dangling}
HOST="$LABEL.example.com"

info=$(curl -sf "http://$API/_local/info")
pro=$(jq -r .demo_keys.pro <<<"$info")
target=$(jq -r .platform_dns_target <<<"$info")
call() { curl -s -X "$1" "http://$API$2" -H "Authorization: Bearer $pro" -H 'Content-Type: application/json' ${3:+-d "$3"}; }
fail() { echo "FAIL: $*" >&2; exit 1; }

project=$(call POST /v1/projects '{"name":"dangling"}' | jq -r .id)
call POST "/v1/projects/$project/deploys" '{"files":{"index.html":"hi"}}' >/dev/null
call POST "/v1/projects/$project/domains" "{\"hostname\":\"$HOST\"}" >/dev/null
curl -sf -X POST "http://$API/_local/dns/example.com/records" -H 'Content-Type: application/json' \
  -d "{\"name\":\"$LABEL\",\"type\":\"CNAME\",\"value\":\"$target\"}" >/dev/null
dig +short -p "$DNS_PORT" @127.0.0.1 CNAME "$HOST" | grep -qi "^$target\.$" || fail "CNAME not served"
curl -sf -X POST "http://$API/_local/clock/advance" -H 'Content-Type: application/json' -d '{"seconds": 61}' >/dev/null

headers=$(curl -s -D - -o /dev/null -X DELETE "http://$API/v1/projects/$project/domains/$HOST" \
  -H "Authorization: Bearer $pro")
grep -q '^HTTP/1.1 204' <<<"$headers" || fail "expected 204: $headers"
line=$(grep -i '^dangling-dns-record:' <<<"$headers") || fail "no Dangling-Dns-Record header"
grep -qF "fqdn=\"$HOST\"" <<<"$line" || fail "wrong record: $line"
echo "ok: $line"
