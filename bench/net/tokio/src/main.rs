//! The Tokio peer of the loopback echo benchmark: a task per connection reading and
//! writing back, on the multi-thread runtime (default: a worker per CPU) or the
//! current-thread runtime.
//!
//!   echo_tokio PORT multi|current [N]   (prints "READY <port>" once listening; runs until
//!                                        killed, or until N connections have closed)
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

static EXIT_AFTER: AtomicU64 = AtomicU64::new(0);
static CLOSED: AtomicU64 = AtomicU64::new(0);
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

async fn echo(mut s: TcpStream) {
    let _ = s.set_nodelay(true);
    let mut buf = vec![0u8; 65536];
    loop {
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if s.write_all(&buf[..n]).await.is_err() {
                    return;
                }
            }
        }
    }
}

async fn serve(s: TcpStream) {
    echo(s).await;
    let n = EXIT_AFTER.load(Ordering::Relaxed);
    if n > 0 && CLOSED.fetch_add(1, Ordering::Relaxed) + 1 == n {
        std::process::exit(0);
    }
}

async fn run(port: u16) {
    let ln = TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    println!("READY {}", ln.local_addr().unwrap().port());
    std::io::stdout().flush().unwrap();
    loop {
        if let Ok((s, _)) = ln.accept().await {
            tokio::spawn(serve(s));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let port: u16 = args.get(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    let flavour = args.get(2).map(String::as_str).unwrap_or("multi");
    EXIT_AFTER.store(args.get(3).and_then(|n| n.parse().ok()).unwrap_or(0), Ordering::Relaxed);
    let rt = match flavour {
        "current" => tokio::runtime::Builder::new_current_thread().enable_all().build(),
        _ => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
    }
    .expect("runtime");
    rt.block_on(run(port));
}
