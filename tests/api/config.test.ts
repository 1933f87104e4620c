import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { ConfigError, loadConfig } from "../../src/config";

describe("loadConfig defaults", () => {
  test("port 8080, host 127.0.0.1, dataDir ./data resolved, no SMTP, not dev", () => {
    const c = loadConfig({}, []);
    expect(c.port).toBe(8080);
    expect(c.host).toBe("127.0.0.1");
    expect(c.dataDir).toBe(resolve("./data"));
    expect(c.dataDir.startsWith("/")).toBe(true);
    // localhost, not 127.0.0.1: browsers refuse an IP address as a passkey's relying party.
    expect(c.publicUrl).toBe("http://localhost:8080");
    expect(c.smtpUrl).toBeNull();
    expect(c.smtpFrom).toBe("smsdesk@localhost");
    expect(c.dev).toBe(false);
    expect(c.adminEmail).toBeNull();
    expect(c.adminPassword).toBeNull();
    expect(c.trustedProxies).toEqual([]);
  });

  test("empty environment values count as unset", () => {
    const c = loadConfig({ HOST: "", DATA_DIR: "", PUBLIC_URL: "", SMTP_URL: "", SMSDESK_DEV: "" }, []);
    expect(c.host).toBe("127.0.0.1");
    expect(c.dataDir).toBe(resolve("./data"));
    expect(c.publicUrl).toBe("http://localhost:8080");
    expect(c.smtpUrl).toBeNull();
    expect(c.dev).toBe(false);
  });

  test("an empty PORT counts as unset too (not port 0, a random port)", () => {
    expect(loadConfig({ PORT: "" }, []).port).toBe(8080);
  });
});

describe("environment", () => {
  test("is read", () => {
    const c = loadConfig(
      {
        PORT: "9000",
        HOST: "0.0.0.0",
        DATA_DIR: "/tmp/smsdesk-x",
        SMTP_URL: "smtps://u:p@mail.example.com:465",
        SMTP_FROM: "noreply@example.com",
        SMSDESK_DEV: "true",
        ADMIN_EMAIL: "admin@example.com",
        ADMIN_PASSWORD: "secret1",
      },
      [],
    );
    expect(c.port).toBe(9000);
    expect(c.host).toBe("0.0.0.0");
    // 0.0.0.0 is not an address users can open.
    expect(c.publicUrl).toBe("http://localhost:9000");
    expect(c.dataDir).toBe("/tmp/smsdesk-x");
    expect(c.smtpUrl).toBe("smtps://u:p@mail.example.com:465");
    expect(c.smtpFrom).toBe("noreply@example.com");
    expect(c.dev).toBe(true);
    expect(c.adminEmail).toBe("admin@example.com");
    expect(c.adminPassword).toBe("secret1");
  });

  test.each([["1", true], ["yes", true], ["TRUE", true], ["0", false], ["no", false]])("SMSDESK_DEV=%s gives dev %p", (value, dev) => {
    expect(loadConfig({ SMSDESK_DEV: value }, []).dev).toBe(dev);
  });

  test("PUBLIC_URL loses trailing slashes and sets the sender domain", () => {
    const c = loadConfig({ PUBLIC_URL: "https://sms.example.com//" }, []);
    expect(c.publicUrl).toBe("https://sms.example.com");
    expect(c.smtpFrom).toBe("smsdesk@sms.example.com");
  });
});

describe("PUBLIC_URL default", () => {
  test.each([
    ["127.0.0.1", "http://localhost:8080"],
    ["0.0.0.0", "http://localhost:8080"],
    ["localhost", "http://localhost:8080"],
    ["10.1.2.3", "http://10.1.2.3:8080"],
    ["sms.internal", "http://sms.internal:8080"],
    ["fd00::5", "http://[fd00::5]:8080"],
  ])("HOST=%s gives %s", (host, url) => {
    expect(loadConfig({ HOST: host }, []).publicUrl).toBe(url);
  });

  test("keeps the port, and an explicit PUBLIC_URL wins", () => {
    expect(loadConfig({ PORT: "9001" }, []).publicUrl).toBe("http://localhost:9001");
    expect(loadConfig({ PUBLIC_URL: "http://127.0.0.1:8080" }, []).publicUrl).toBe("http://127.0.0.1:8080");
  });
});

describe("TRUSTED_PROXIES", () => {
  test("a comma-separated list of IPv4, IPv6 and IPv4-mapped addresses and CIDRs, spaces ignored", () => {
    const value = "127.0.0.1, 10.0.0.0/8,::1 , fd00::/8,::ffff:192.0.2.1,192.168.0.0/16";
    expect(loadConfig({ TRUSTED_PROXIES: value }, []).trustedProxies).toEqual([
      "127.0.0.1",
      "10.0.0.0/8",
      "::1",
      "fd00::/8",
      "::ffff:192.0.2.1",
      "192.168.0.0/16",
    ]);
  });

  test("--trusted-proxies overrides the environment; empty means none", () => {
    expect(loadConfig({ TRUSTED_PROXIES: "10.0.0.1" }, ["--trusted-proxies", "172.16.0.0/12"]).trustedProxies).toEqual(["172.16.0.0/12"]);
    expect(loadConfig({ TRUSTED_PROXIES: "" }, []).trustedProxies).toEqual([]);
  });

  test.each(["proxy.example.com", "10.0.0.0/33", "fd00::/129", "1.2.3", "256.1.1.1", "10.0.0.0/x", "1::2::3"])("%s throws ConfigError naming it", (entry) => {
    expect(() => loadConfig({ TRUSTED_PROXIES: `127.0.0.1,${entry}` }, [])).toThrow(
      new ConfigError(`TRUSTED_PROXIES: ${entry} is not an IP address or CIDR (e.g. 10.0.0.0/8, ::1)`),
    );
  });
});

describe("flags", () => {
  test("override the environment, in both --flag value and --flag=value forms", () => {
    const env = { PORT: "9000", HOST: "10.0.0.1", DATA_DIR: "/tmp/env-dir" };
    const c = loadConfig(env, ["--port", "9100", "--host=192.168.1.5", "--data-dir", "/tmp/flag-dir", "--dev"]);
    expect(c.port).toBe(9100);
    expect(c.host).toBe("192.168.1.5");
    expect(c.dataDir).toBe("/tmp/flag-dir");
    expect(c.dev).toBe(true);
    expect(c.publicUrl).toBe("http://192.168.1.5:9100");
  });

  test("--public-url, --smtp-url and --smtp-from are read", () => {
    const c = loadConfig({}, ["--public-url", "https://a.example.com", "--smtp-url=smtp://mail:25", "--smtp-from", "x@a.example.com"]);
    expect(c.publicUrl).toBe("https://a.example.com");
    expect(c.smtpUrl).toBe("smtp://mail:25");
    expect(c.smtpFrom).toBe("x@a.example.com");
  });

  test("a --flag=value whose value contains '=' keeps the whole value", () => {
    // e.g. a base64 SMTP password, or a data folder with '=' in its name
    expect(loadConfig({}, ["--smtp-url=smtp://user:pa=ss@mail.example.com:587"]).smtpUrl).toBe("smtp://user:pa=ss@mail.example.com:587");
    expect(loadConfig({}, ["--data-dir=/tmp/a=b"]).dataDir).toBe("/tmp/a=b");
  });

  test("an unknown flag throws ConfigError naming it", () => {
    expect(() => loadConfig({}, ["--prot", "80"])).toThrow(ConfigError);
    expect(() => loadConfig({}, ["--prot", "80"])).toThrow("Unknown option --prot. Run with --help for the options.");
    expect(() => loadConfig({}, ["stray"])).toThrow(ConfigError);
  });

  test("a flag without its value throws", () => {
    expect(() => loadConfig({}, ["--port"])).toThrow(new ConfigError("--port needs a value"));
  });
});

describe("invalid values", () => {
  test.each(["abc", "-1", "65536", "80.5", "8080x"])("PORT=%s throws ConfigError", (port) => {
    expect(() => loadConfig({ PORT: port }, [])).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: port }, [])).toThrow(`PORT must be 0-65535, got ${port}`);
  });

  test("--port with a bad value throws ConfigError", () => {
    expect(() => loadConfig({}, ["--port", "http"])).toThrow(ConfigError);
  });

  test("SMTP_URL must be smtp:// or smtps://", () => {
    expect(() => loadConfig({ SMTP_URL: "mail.example.com:25" }, [])).toThrow("SMTP_URL must start with smtp:// or smtps://");
  });

  test("PUBLIC_URL must be a URL", () => {
    expect(() => loadConfig({ PUBLIC_URL: "not a url" }, [])).toThrow(ConfigError);
  });
});
