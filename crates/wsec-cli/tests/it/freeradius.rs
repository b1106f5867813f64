//! A FreeRADIUS server for the tests (Debian's `freeradius`, which `scripts/setup`
//! installs): a copy of /etc/freeradius/3.0 in a private directory with a generated test
//! PKI (`openssl`), one RADIUS client (127.0.0.1 with the test's secret), a user for the
//! password methods, the EAP-TLS certificates, and the TLS versions asked for; listening
//! on free loopback ports, killed when dropped. A missing `freeradius` fails the test.
use std::io::Read;
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub const SECRET: &str = "wsec-lab-secret";
pub const USER: &str = "alice@wsec.test";
pub const PASSWORD: &str = "correct horse battery";
pub const SERVER_NAME: &str = "radius.wsec.test";

/// The test PKI: a CA, the server's certificate, a client's, and a CA nobody trusts with a
/// server certificate of the same name.
pub struct Pki {
    pub dir: PathBuf,
}

impl Pki {
    pub fn path(&self, f: &str) -> PathBuf {
        self.dir.join(f)
    }
    pub fn read(&self, f: &str) -> Vec<u8> {
        std::fs::read(self.path(f)).unwrap_or_else(|e| panic!("{f}: {e}"))
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").args(args).current_dir(dir).output().expect("openssl runs (scripts/setup installs it)");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn issue(dir: &Path, ca: &str, name: &str, subject: &str, ext: &str, curve: &str) {
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            &format!("ec_paramgen_curve:{curve}"),
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
            "-subj",
            subject,
        ],
    );
    std::fs::write(dir.join(format!("{name}.ext")), ext).unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{name}.csr"),
            "-CA",
            &format!("{ca}.pem"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-out",
            &format!("{name}.pem"),
            "-days",
            "30",
            "-sha256",
            "-extfile",
            &format!("{name}.ext"),
        ],
    );
}

fn ca(dir: &Path, name: &str, subject: &str, curve: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            &format!("ec_paramgen_curve:{curve}"),
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.pem"),
            "-days",
            "30",
            "-subj",
            subject,
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
}

/// The PKI, made once per test process.
pub fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("wsec-pki-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        ca(&dir, "ca", "/CN=wsec test CA", "P-256");
        issue(
            &dir,
            "ca",
            "server",
            &format!("/CN={SERVER_NAME}"),
            &format!("subjectAltName=DNS:{SERVER_NAME}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"),
            "P-256",
        );
        issue(&dir, "ca", "client", &format!("/CN={USER}"), "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n", "P-256");
        ca(&dir, "rogue-ca", "/CN=wsec rogue CA", "P-256");
        // WPA3-Enterprise 192-bit: P-384 throughout (ECDSA with SHA-384).
        ca(&dir, "ca384", "/CN=wsec test CA P-384", "P-384");
        issue(
            &dir,
            "ca384",
            "server384",
            &format!("/CN={SERVER_NAME}"),
            &format!("subjectAltName=DNS:{SERVER_NAME}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"),
            "P-384",
        );
        issue(&dir, "ca384", "client384", &format!("/CN={USER}"), "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n", "P-384");
        issue(
            &dir,
            "rogue-ca",
            "rogue-server",
            &format!("/CN={SERVER_NAME}"),
            &format!("subjectAltName=DNS:{SERVER_NAME}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"),
            "P-256",
        );
        Pki { dir }
    })
}

/// What the server is started with.
#[derive(Clone, Debug)]
pub struct Opts {
    /// tls_max_version ("1.2" or "1.3").
    pub tls_max: &'static str,
    /// The server certificate's name in the PKI ("server" or "rogue-server").
    pub cert: &'static str,
    /// The RADIUS client secret the server holds.
    pub secret: &'static str,
    /// The CA that signs the client certificates the server accepts ("ca" or "ca384").
    pub ca: &'static str,
    /// Suite B 192-bit: only ECDHE-ECDSA-AES256-GCM-SHA384 on secp384r1.
    pub suite_b: bool,
    /// Reply attributes for USER's Access-Accept (users-file lines, e.g.
    /// "Session-Timeout = 3"), comma separated.
    pub reply: &'static str,
    /// Also listen for RadSec (RFC 6614): Debian's sites-available/tls on a free loopback
    /// TCP port, with the server certificate `cert` and client certificates of `ca`.
    pub radsec: bool,
    /// EAP-MSCHAPv2's `send_error = yes`: a wrong password gets a Failure-Request with
    /// E=691 (the default, no, goes straight to EAP-Failure / PEAP's Result TLV failure).
    pub mschapv2_send_error: bool,
}

impl Default for Opts {
    fn default() -> Opts {
        Opts {
            tls_max: "1.2",
            cert: "server",
            secret: SECRET,
            ca: "ca",
            suite_b: false,
            reply: "",
            radsec: false,
            mschapv2_send_error: false,
        }
    }
}

pub struct FreeRadius {
    pub dir: PathBuf,
    pub auth: SocketAddr,
    /// The accounting port (the accounting tests' server).
    #[allow(dead_code)]
    pub acct: SocketAddr,
    /// The RadSec listener (authentication and accounting), with `Opts::radsec`.
    #[allow(dead_code)]
    pub radsec: Option<SocketAddr>,
    child: Option<Child>,
}

/// The listener and the `clients radsec` block of Debian's sites-available/tls (its
/// home_server, pool and realm, a proxy's, left out), on 127.0.0.1:`port` with the test
/// PKI: the server's certificate and key, the CA client certificates must chain to.
fn radsec_site(shipped: &str, port: u16, cert: &Path, key: &Path, ca: &Path) -> String {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut keep = false;
    for l in shipped.lines() {
        let t = l.trim();
        if depth == 0 && (t.starts_with("listen {") || t.starts_with("clients radsec {")) {
            keep = true;
        }
        let opens = l.matches('{').count() as i32 - l.matches('}').count() as i32;
        if keep && !t.starts_with('#') {
            let line = match t.split_once('=').map(|(k, _)| k.trim()) {
                Some("ipaddr") if depth == 1 => "\tipaddr = 127.0.0.1".to_string(),
                Some("port") if depth == 1 => format!("\tport = {port}"),
                Some("private_key_password") => continue,
                Some("private_key_file") => format!("\t\tprivate_key_file = {}", key.display()),
                Some("certificate_file") => format!("\t\tcertificate_file = {}", cert.display()),
                Some("ca_file") => format!("\t\tca_file = {}", ca.display()),
                Some("ca_path") | Some("ca_path_reload_interval") => continue,
                _ => l.to_string(),
            };
            out.push(line);
        }
        if !t.starts_with('#') {
            depth += opens;
        }
        if keep && depth == 0 && opens < 0 {
            keep = false;
        }
    }
    out.join("\n") + "\n"
}

/// Three consecutive free UDP ports on loopback (authentication, accounting, the
/// inner-tunnel server FreeRADIUS runs for PEAP and TTLS).
fn free_ports() -> u16 {
    for _ in 0..100 {
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let p = a.local_addr().unwrap().port();
        if p < 65533 && UdpSocket::bind(("127.0.0.1", p + 1)).is_ok() && UdpSocket::bind(("127.0.0.1", p + 2)).is_ok() {
            return p;
        }
    }
    panic!("no three free UDP ports on loopback");
}

/// The default site's listeners on loopback at `port` (auth) and `port + 1` (acct), its
/// IPv6 listeners (which would collide between servers) removed.
fn listen_on(site: String, port: u16) -> String {
    let mut out = Vec::new();
    let mut block = 0;
    let mut skipping = false;
    for l in site.lines() {
        if l == "listen {" {
            block += 1;
            skipping = block > 2;
        }
        if skipping {
            if l == "}" {
                skipping = false;
            }
            continue;
        }
        let t = l.trim();
        if block <= 2 && t == "ipaddr = *" {
            out.push("\tipaddr = 127.0.0.1".to_string());
        } else if block <= 2 && t == "port = 0" {
            out.push(format!("\tport = {}", port + block - 1));
        } else {
            out.push(l.to_string());
        }
    }
    out.join("\n")
}

fn edit(path: &Path, f: impl FnOnce(String) -> String) {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::fs::write(path, f(s)).unwrap();
}

impl FreeRadius {
    pub fn start(o: Opts) -> FreeRadius {
        let pki = pki();
        let which = Command::new("sh").args(["-c", "command -v freeradius"]).output().unwrap();
        assert!(which.status.success(), "freeradius is not installed: run scripts/setup (Debian package freeradius)");
        let dir = std::env::temp_dir().join(format!("wsec-freeradius-{}-{}", std::process::id(), free_ports()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("log")).unwrap();
        std::fs::create_dir_all(dir.join("run")).unwrap();
        let raddb = dir.join("raddb");
        let st = Command::new("cp").args(["-a", "/etc/freeradius/3.0"]).arg(&raddb).status().unwrap();
        assert!(st.success(), "copy of /etc/freeradius/3.0");
        let d = dir.display().to_string();
        edit(&raddb.join("radiusd.conf"), |s| {
            s.lines()
                .filter(|l| !matches!(l.trim(), "user = freerad" | "group = freerad"))
                .map(|l| {
                    if l.starts_with("logdir = ") {
                        format!("logdir = {d}/log")
                    } else if l.starts_with("run_dir = ") {
                        format!("run_dir = {d}/run")
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        });
        let p = |f: &str| pki.path(f).display().to_string();
        edit(&raddb.join("mods-available/eap"), |s| {
            s.replace("private_key_password = whatever\n", "")
                .replace(
                    "private_key_file = /etc/ssl/private/ssl-cert-snakeoil.key",
                    &format!("private_key_file = {}", p(&format!("{}.key", o.cert))),
                )
                .replace(
                    "certificate_file = /etc/ssl/certs/ssl-cert-snakeoil.pem",
                    &format!("certificate_file = {}", p(&format!("{}.pem", o.cert))),
                )
                .replace("ca_file = /etc/ssl/certs/ca-certificates.crt", &format!("ca_file = {}", p(&format!("{}.pem", o.ca))))
                .replace("tls_max_version = \"1.2\"", &format!("tls_max_version = \"{}\"", o.tls_max))
                .replace(
                    "cipher_list = \"DEFAULT\"",
                    if o.suite_b { "cipher_list = \"ECDHE-ECDSA-AES256-GCM-SHA384\"" } else { "cipher_list = \"DEFAULT\"" },
                )
                .replace("ecdh_curve = \"\"", if o.suite_b { "ecdh_curve = \"secp384r1\"" } else { "ecdh_curve = \"\"" })
                .replace("\t#\tsend_error = no", if o.mschapv2_send_error { "\t\tsend_error = yes" } else { "\t#\tsend_error = no" })
        });
        std::fs::write(raddb.join("clients.conf"), format!("client lab {{\n\tipaddr = 127.0.0.1\n\tsecret = {}\n}}\n", o.secret)).unwrap();
        let reply = if o.reply.is_empty() { String::new() } else { format!("\t{}\n", o.reply.replace(", ", ",\n\t")) };
        edit(&raddb.join("mods-config/files/authorize"), |s| format!("\"{USER}\" Cleartext-Password := \"{PASSWORD}\"\n{reply}\n{s}"));
        let port = free_ports();
        edit(&raddb.join("sites-available/default"), |s| listen_on(s, port));
        edit(&raddb.join("sites-available/inner-tunnel"), |s| s.replace("port = 18120", &format!("port = {}", port + 2)));
        let radsec = o.radsec.then(|| {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let port = l.local_addr().unwrap().port();
            drop(l);
            let shipped = std::fs::read_to_string(raddb.join("sites-available/tls")).expect("Debian's sites-available/tls");
            let site = radsec_site(
                &shipped,
                port,
                &pki.path(&format!("{}.pem", o.cert)),
                &pki.path(&format!("{}.key", o.cert)),
                &pki.path(&format!("{}.pem", o.ca)),
            );
            std::fs::write(raddb.join("sites-enabled/radsec"), site).unwrap();
            SocketAddr::from(([127, 0, 0, 1], port))
        });
        let log = std::fs::File::create(dir.join("out.log")).unwrap();
        // -X is -sfxx -l stdout; TLS listeners need threads, so without -s for RadSec.
        let args: &[&str] = if o.radsec { &["-f", "-xx", "-l", "stdout", "-d"] } else { &["-X", "-d"] };
        let child = Command::new("freeradius")
            .args(args)
            .arg(&raddb)
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .spawn()
            .expect("freeradius starts");
        let mut fr = FreeRadius {
            dir,
            auth: SocketAddr::from(([127, 0, 0, 1], port)),
            acct: SocketAddr::from(([127, 0, 0, 1], port + 1)),
            radsec,
            child: Some(child),
        };
        let t0 = Instant::now();
        while !fr.log().contains("Ready to process requests") {
            if let Some(st) = fr.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("freeradius exited ({st}) before it was ready:\n{}", fr.log());
            }
            assert!(t0.elapsed() < Duration::from_secs(30), "freeradius not ready after 30 s:\n{}", fr.log());
            std::thread::sleep(Duration::from_millis(50));
        }
        fr
    }

    /// What the server printed (-X: every request and its processing).
    pub fn log(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(self.dir.join("out.log")) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// Stops the server (the primary going down).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for FreeRadius {
    fn drop(&mut self) {
        self.stop();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The EAP-TLS network block lines of `wsec sta` (USER with the client certificate, the
/// server checked against the CA and `wsec.test`).
pub fn eap_tls_network() -> String {
    let p = |f: &str| pki().path(f).display().to_string();
    format!(
        "    key_mgmt=WPA-EAP\n    eap=TLS\n    identity=\"{USER}\"\n    ca_cert=\"{}\"\n    client_cert=\"{}\"\n    private_key=\"{}\"\n    domain_suffix_match=\"wsec.test\"\n",
        p("ca.pem"),
        p("client.pem"),
        p("client.key")
    )
}

/// The MSKs (hex) of the server's Access-Accepts, in order (-X prints MS-MPPE-Recv-Key and
/// -Send-Key).
pub fn msks(log: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut recv: Option<String> = None;
    for l in log.lines() {
        let v = |l: &str| l.split("= 0x").nth(1).map(|h| h.trim().to_string());
        if l.contains("MS-MPPE-Recv-Key = 0x") {
            recv = v(l);
        } else if l.contains("MS-MPPE-Send-Key = 0x") {
            if let (Some(r), Some(s)) = (recv.take(), v(l)) {
                out.push(format!("{r}{s}"));
            }
        }
    }
    out
}
