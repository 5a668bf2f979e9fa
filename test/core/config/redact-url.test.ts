import { describe, expect, it } from 'vitest';
import { redactAppUrl, redactUrl } from '../../../src/core/config/base-url.js';

describe('URLs in messages', () => {
  it('redactUrl hides a password', () => {
    expect(redactUrl('https://user:pa55@host.example/api/v1')).toBe('https://user:***@host.example/api/v1');
    expect(redactUrl('https://host.example/api/v1')).toBe('https://host.example/api/v1');
  });

  it('redactAppUrl also hides the values of query parameters named for a credential, keeping the rest and the fragment', () => {
    expect(redactAppUrl('http://a:b@127.0.0.1:3000/hook?token=t1&tenant=acme&api_key=k&X-Sig=s#frag')).toBe(
      'http://a:***@127.0.0.1:3000/hook?token=***&tenant=acme&api_key=***&X-Sig=***#frag',
    );
    expect(redactAppUrl('http://127.0.0.1:3000/hook?page=2&flag')).toBe('http://127.0.0.1:3000/hook?page=2&flag');
    expect(redactAppUrl('http://127.0.0.1:3000/hook')).toBe('http://127.0.0.1:3000/hook');
  });
});
