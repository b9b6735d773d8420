/**
 * The application under test: a product catalog, its reviews and promotions, kept in ekoDB and reached over
 * its HTTP API with fetch. Tests give it a test server's URL and API key; production gives it the real ones.
 */
export async function openCatalog({ url, apiKey }) {
  const { token } = await send(url, 'POST', '/api/auth/token', undefined, { api_key: apiKey });
  const call = (method, path, body) => send(url, method, path, token, body);
  const where = (field, value) => ({ filter: { type: 'Condition', content: { field, operator: 'Eq', value } } });

  return {
    /** The products of a category, plain values, by name. */
    async inCategory(category) {
      const found = await call('POST', '/api/find/products', {
        ...where('category', category),
        sort: [{ field: 'name', ascending: true }],
      });
      return found.map(plain);
    },
    /** Adds a review; answers its id. */
    async review(product, stars, text) {
      return (await call('POST', '/api/insert/reviews', { product, stars, text })).id;
    },
    /** Puts a product on promotion for a while (a duration such as '10m'); answers the promotion's id. */
    async promote(product, duration) {
      return (await call('POST', '/api/insert/promotions', { product, ttl: duration })).id;
    },
    /** The names of the products on promotion: an expired promotion is gone. */
    async promoted() {
      return (await call('POST', '/api/find/promotions', {})).map(plain).map((promotion) => promotion.product);
    },
    /** The mean of a product's stars, or undefined when it has no review. */
    async rating(product) {
      const reviews = (await call('POST', '/api/find/reviews', where('product', product))).map(plain);
      return reviews.length ? reviews.reduce((sum, review) => sum + review.stars, 0) / reviews.length : undefined;
    },
  };
}

/** One request; a failure throws with the server's message. */
async function send(url, method, path, token, body) {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${answer.error ?? answer.message}`);
  return answer;
}

/** A record with its typed values ({type, value}) unwrapped. */
function plain(record) {
  return Object.fromEntries(Object.entries(record).map(([key, field]) => [key, field?.value ?? field]));
}
