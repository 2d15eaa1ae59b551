//! A minimal HTTP/1.1 client over a plain TCP stream (`Connection: close`, a JSON body, a
//! chunked or sized answer): enough for xtask to set up a reliability pass against the local
//! service without linking an HTTP stack into the task runner.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use serde_json::Value;

/// A minimal HTTP/1.1 exchange (`Connection: close`), enough to set up a pass.
pub fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, Value)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let payload = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        payload.len()
    );
    if let Some(key) = key {
        request.push_str(&format!("Authorization: Bearer {key}\r\n"));
    }
    if body.is_some() {
        request.push_str("Content-Type: application/json\r\n");
    }
    request.push_str("\r\n");
    request.push_str(&payload);
    stream.write_all(request.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| anyhow!("no complete HTTP answer"))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let rest = &raw[split + 4..];
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| anyhow!("no status line in: {head}"))?;
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    let body = if chunked {
        dechunk(rest)?
    } else {
        rest.to_vec()
    };
    let body = String::from_utf8(body).context("the answer is not UTF-8")?;
    let value = if body.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&body).with_context(|| format!("answer is not JSON: {body}"))?
    };
    Ok((status, value))
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| anyhow!("bad chunked body"))?;
        let size = std::str::from_utf8(&rest[..line_end])?;
        let size = usize::from_str_radix(size.trim(), 16)?;
        if size == 0 {
            return Ok(body);
        }
        let after = &rest[line_end + 2..];
        let chunk = after
            .get(..size)
            .ok_or_else(|| anyhow!("short chunk in the answer"))?;
        body.extend_from_slice(chunk);
        rest = after.get(size + 2..).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunked_answer_is_put_back_together() {
        let body = dechunk(b"5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n").unwrap();
        assert_eq!(body, b"hello, world");
        assert!(dechunk(b"5\r\nhel").is_err(), "a short chunk is an error");
    }
}
