import { describe, expect, it } from 'vitest';
import { isLoopbackHost, loopbackAdvice } from '../../src/lessons/servingAddress.ts';

describe('a link other devices cannot open', () => {
  it('knows the loopback addresses, and nothing else', () => {
    for (const h of ['localhost', 'LOCALHOST', 'lab.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '0:0:0:0:0:0:0:1', '0.0.0.0'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['192.168.1.20', '10.0.0.5', 'lab.school.example', '128.0.0.1', '[fe80::1]', 'localhost.example.com'])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('on the loopback says how to serve the lab on the network and the address to use, keeping port and path', () => {
    expect(loopbackAdvice('http://127.0.0.1:5173/?sheet#lesson=seeds')).toEqual({
      here: 'http://127.0.0.1:5173',
      toUse: "http://<this computer's network address>:5173/",
      devServer: 'npm start -- --host',
      build: 'npm run build',
    });
    expect(loopbackAdvice('http://[::1]:4173/lab/')?.toUse).toBe("http://<this computer's network address>:4173/lab/");
    expect(loopbackAdvice('http://192.168.1.20:5173/')).toBeNull();
    expect(loopbackAdvice('https://lab.example/')).toBeNull();
    expect(loopbackAdvice('not a url')).toBeNull();
  });
});
