#!/usr/bin/env bash
# Acceptance walk: Domain Connect against the local DNS provider, with curl and dig only.
# Needs a running local service (`domain-desk serve --memory --clock-speed 0`), curl, jq, dig.
#   API=127.0.0.1:8787 DNS_PORT=8853 bash tests/acceptance/domain_connect.sh
set -euo pipefail
API=${API:-127.0.0.1:8787}
DNS_PORT=${DNS_PORT:-8853}
LABEL=${LABEL:-auto}
HOST="$LABEL.example.com"
fail() { echo "FAIL: $*" >&2; exit 1; }

info=$(curl -sf "http://$API/_local/info")
pro=$(jq -r .demo_keys.pro <<<"$info")
target=$(jq -r .platform_dns_target <<<"$info")
call() { curl -s -X "$1" "http://$API$2" -H "Authorization: Bearer $pro" -H 'Content-Type: application/json' ${3:+-d "$3"}; }

project=$(call POST /v1/projects '{"name":"auto"}' | jq -r .id)
call POST "/v1/projects/$project/deploys" '{"files":{"index.html":"hi"}}' >/dev/null
call POST "/v1/projects/$project/domains" "{\"hostname\":\"$HOST\"}" | jq -e .hostname >/dev/null

# Discovery: the zone's _domainconnect TXT names the provider's API, which has settings for it.
api_host=$(dig +short -p "$DNS_PORT" @127.0.0.1 TXT _domainconnect.example.com | tr -d '"')
[ -n "$api_host" ] || fail "no _domainconnect TXT"
settings=$(curl -sf "http://$api_host/v2/example.com/settings")
sync=$(jq -r .urlSyncUX <<<"$settings")
curl -sf -o /dev/null "$(jq -r .urlAPI <<<"$settings")/v2/domainTemplates/providers/local-platform.test/services/custom-domain" \
  || fail "template not supported"
status=$(curl -s -o /dev/null -w '%{http_code}' "$sync/v2/domainTemplates/providers/local-platform.test/services/nope")
[ "$status" = 404 ] || fail "an unknown template answered $status"

apply="$sync/v2/domainTemplates/providers/local-platform.test/services/custom-domain/apply"
query="domain=example.com&host=$LABEL&redirect_uri=http%3A%2F%2Flocalhost%3A9%2Fdone&state=walk"
page=$(curl -sf "$apply?$query")
grep -q "<td>CNAME</td><td>$HOST</td><td>$target</td>" <<<"$page" || fail "the consent page lacks the record"
token=$(sed -n 's/.*name="token" value="\([0-9a-f]*\)".*/\1/p' <<<"$page")

# Cancel first: back to the redirect with error=access_denied, nothing written.
location=$(curl -s -o /dev/null -w '%{redirect_url}' -X POST "$apply" \
  --data-urlencode "query=$query" --data-urlencode "token=$token" --data-urlencode action=cancel)
grep -q 'error=access_denied' <<<"$location" || fail "cancel went to $location"
[ -z "$(dig +short -p "$DNS_PORT" @127.0.0.1 CNAME "$HOST")" ] || fail "cancel wrote a record"

location=$(curl -s -o /dev/null -w '%{redirect_url}' -X POST "$apply" \
  --data-urlencode "query=$query" --data-urlencode "token=$token" --data-urlencode action=apply)
[ "$location" = "http://localhost:9/done?state=walk" ] || fail "apply went to $location"
dig +short -p "$DNS_PORT" @127.0.0.1 CNAME "$HOST" | grep -qi "^$target\.$" || fail "CNAME not served"

curl -sf -X POST "http://$API/_local/clock/advance" -H 'Content-Type: application/json' -d '{"seconds": 61}' >/dev/null
verified=$(call POST "/v1/projects/$project/domains/$HOST/verify" '{}')
[ "$(jq -r .status <<<"$verified")" = verified ] || fail "verify: $verified"
echo "ok: $HOST set up through Domain Connect and verified"
