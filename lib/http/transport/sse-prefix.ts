/** Path prefix of the SSE subscription route. */
export const SSE_PREFIX = '/api/subscribe/';
