/** The console's shell: the header, the section navigation, the page for the current URL, sign-in without a token. */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { getToken, setToken } from './api.js';
import { useAccess } from './access.js';
import { navigate, onLinkClick, useLocation } from './router.js';
import { matchRoute, SECTIONS } from './routes.js';
import { SignIn } from './pages/sign-in.js';
import './styles.css';

function NotFound() {
  return (
    <main id="main">
      <h1>Page not found</h1>
      <p>
        <a href="/overview">Go to the overview</a>
      </p>
    </main>
  );
}

function SignedInAs() {
  const access = useAccess();
  if (!access) return null;
  return (
    <span class="muted small" data-testid="signed-in-as">
      {access.name}
      {access.admin ? ' (admin)' : ' (restricted)'}
    </span>
  );
}

function App() {
  let { path, query } = useLocation();
  const signedIn = getToken() !== null;
  // Redirects rewrite the address in place and render the target at once (no listener is subscribed yet).
  if (!signedIn && path !== '/sign-in') {
    query = new URLSearchParams({ next: path + location.search });
    path = '/sign-in';
    history.replaceState(null, '', `${path}?${query.toString()}`);
  } else if (path === '/') {
    path = '/overview';
    history.replaceState(null, '', path);
  }
  const match = path === '/sign-in' ? undefined : matchRoute(path);
  const title = path === '/sign-in' ? 'Sign in' : match ? match.route.title(match.params) : 'Page not found';
  useEffect(() => {
    document.title = `${title} · EddyDB`;
  }, [title]);
  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/overview">
          EddyDB
        </a>
        {signedIn && (
          <div class="who">
            <SignedInAs />
            <button
              type="button"
              class="link"
              onClick={() => {
                setToken(null);
                navigate('/sign-in', true);
              }}
            >
              Sign out
            </button>
          </div>
        )}
      </header>
      <div class={signedIn && path !== '/sign-in' ? 'frame' : undefined}>
        {signedIn && path !== '/sign-in' && (
          <nav class="sections" aria-label="Sections">
            {SECTIONS.map((s) => (
              <a key={s.id} href={s.href} aria-current={match?.route.section === s.id ? 'page' : undefined}>
                {s.label}
              </a>
            ))}
          </nav>
        )}
        {path === '/sign-in' ? (
          <SignIn next={query.get('next') ?? '/overview'} />
        ) : match ? (
          match.route.render(match.params, query)
        ) : (
          <NotFound />
        )}
      </div>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
