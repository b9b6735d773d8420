/** The console's shell: header navigation, the page for the current URL, sign-in when there is no token. */
import { render } from 'preact';
import { getToken, setToken } from './api.js';
import { navigate, onLinkClick, useLocation } from './router.js';
import { SignIn } from './pages/sign-in.js';
import { Collections } from './pages/collections.js';
import { Records } from './pages/records.js';
import { RecordView } from './pages/record.js';
import { RealTime } from './pages/realtime.js';
import { Overview } from './pages/overview.js';
import './styles.css';

function Page({ path, query }: { path: string; query: URLSearchParams }) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'overview' && parts.length === 1) return <Overview />;
  if (parts[0] === 'collections' && parts.length === 1) return <Collections />;
  if (parts[0] === 'collections' && parts.length === 2) return <Records collection={parts[1]!} query={query} />;
  if (parts[0] === 'collections' && parts[2] === 'records' && parts.length === 4)
    return <RecordView collection={parts[1]!} id={parts[3]!} />;
  if (parts[0] === 'realtime') return <RealTime collection={parts[1]} />;
  return (
    <main id="main">
      <h1>Page not found</h1>
      <p>
        <a href="/collections">Go to the collections</a>
      </p>
    </main>
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
  const section = path.startsWith('/realtime') ? 'realtime' : path === '/overview' ? 'overview' : 'collections';
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
          <nav aria-label="Sections">
            <a href="/overview" aria-current={section === 'overview' ? 'page' : undefined}>
              Overview
            </a>
            <a href="/collections" aria-current={section === 'collections' ? 'page' : undefined}>
              Collections
            </a>
            <a href="/realtime" aria-current={section === 'realtime' ? 'page' : undefined}>
              Real time
            </a>
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
          </nav>
        )}
      </header>
      {path === '/sign-in' ? <SignIn next={query.get('next') ?? '/overview'} /> : <Page path={path} query={query} />}
    </div>
  );
}

render(<App />, document.getElementById('app')!);
