/**
 * The chat providers and their status: GET /api/chat_models asks each configured provider for its models (the
 * `local` one always answers, offline), and GET /api/config says which endpoint and whether a key is set.
 */
import { useApi, type Loaded } from '../hooks.js';
import { ErrorBox, Loading } from '../components.js';
import type { ChatModels, ProviderStatus } from './chat-data.js';

export const PROVIDERS = ['local', 'openai', 'anthropic', 'perplexity', 'openai_compatible'] as const;

const LABELS: Record<string, string> = {
  local: 'Local (offline)',
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  perplexity: 'Perplexity',
  openai_compatible: 'OpenAI-compatible',
};

export const providerLabel = (id: string) => LABELS[id] ?? id;

const STATUS_TEXT: Record<string, string> = {
  ok: 'Ready',
  not_configured: 'Not configured',
  auth_failed: 'Key refused',
  permission_denied: 'Permission denied',
  billing: 'Billing problem',
  rate_limited: 'Rate limited',
  unavailable: 'Unavailable',
  unreachable: 'Unreachable',
  request_error: 'Request error',
};

/** Where the provider is configured, from GET /api/config (undefined members when the config is not readable). */
function endpoint(id: string, config: Record<string, unknown> | undefined): string {
  if (id === 'local') return 'Built in';
  if (!config) return '—';
  const url = config[id === 'openai_compatible' ? 'openai_compatible_url' : `${id}_api_url`];
  const keySet = config[`${id}_api_key_set`] === true;
  const parts = [typeof url === 'string' && url ? url : 'default URL', keySet ? 'key set' : 'no key'];
  return parts.join(' · ');
}

export function StatusBadge({ status }: { status: ProviderStatus | undefined }) {
  const s = status?.status ?? 'unknown';
  const tone = s === 'ok' ? 'ok' : s === 'not_configured' ? 'off' : 'bad';
  return (
    <span class={`chat-status ${tone}`} data-status={s}>
      {STATUS_TEXT[s] ?? s}
    </span>
  );
}

export function ProvidersCard({ models }: { models: Loaded<ChatModels> }) {
  const config = useApi<Record<string, unknown>>('/api/config');
  const statuses = models.data?.providers ?? {};
  return (
    <section class="card" aria-labelledby="providers-heading">
      <div class="row chat-head">
        <h2 id="providers-heading" class="small">
          Providers
        </h2>
        <button type="button" class="secondary" disabled={models.loading} onClick={models.reload}>
          {models.loading ? 'Checking…' : 'Check again'}
        </button>
      </div>
      <ErrorBox error={models.error} />
      {!models.data && !models.error && <Loading what="providers" />}
      {models.data && (
        <div class="scroll chat-scroll" tabIndex={0} role="region" aria-label="Providers table">
          <table class="data chat-providers" data-testid="providers">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Status</th>
                <th scope="col">Models</th>
                <th scope="col">Endpoint</th>
              </tr>
            </thead>
            <tbody>
              {PROVIDERS.map((id) => {
                const list = models.data?.[id] ?? [];
                const st = statuses[id];
                return (
                  <tr key={id} data-provider={id}>
                    <th scope="row">{providerLabel(id)}</th>
                    <td>
                      <StatusBadge status={st} />
                      {st?.message && st.status !== 'ok' && st.status !== 'not_configured' && (
                        <div class="muted small chat-wrap">{st.message}</div>
                      )}
                    </td>
                    <td class="chat-wrap">
                      {list.length === 0 ? (
                        <span class="muted">—</span>
                      ) : (
                        <>
                          {list.slice(0, 3).join(', ')}
                          {list.length > 3 && <span class="muted"> and {list.length - 3} more</span>}
                        </>
                      )}
                    </td>
                    <td class="muted small">{endpoint(id, config.data)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
