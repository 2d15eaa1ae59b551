// Domains shaped exactly as api-v1.md returns them, for the view-model tests.
export function domain(overrides = {}) {
  const base = {
    hostname: 'shop.example.com',
    unicode_hostname: 'shop.example.com',
    project_id: 'prj_1',
    apex: false,
    role: 'primary',
    redirect: null,
    status: 'pending_verification',
    dns_record: { type: 'CNAME', name: 'shop', value: 'cname.platform.test', ttl: 3600 },
    verification: { checked_at: null, error: null },
    certificate: { status: 'none', started_at: null, issued_at: null, expires_at: null, error: null },
    created_at: '2026-11-21T11:00:00Z',
  };
  return { ...base, ...overrides };
}
