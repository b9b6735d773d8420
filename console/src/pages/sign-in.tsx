/** Sign-in: exchanges an API key for a token (POST /api/auth/token), kept in sessionStorage for this tab. */
import { useState } from 'preact/hooks';
import { api, setToken } from '../api.js';
import { ErrorBox } from '../components.js';
import { navigate } from '../router.js';

export function SignIn({ next }: { next: string }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { token } = await api<{ token: string }>('POST', '/api/auth/token', { api_key: key });
      setToken(token);
      navigate(next.startsWith('/') && !next.startsWith('//') ? next : '/overview', true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="narrow">
      <h1>Sign in</h1>
      <form onSubmit={(e) => void submit(e)} class="card">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api_key"
          type="password"
          autocomplete="current-password"
          required
          autofocus
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy || !key}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted">The token is kept for this tab only.</p>
      </form>
      <ErrorBox error={error} />
    </main>
  );
}
