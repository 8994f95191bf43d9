#!/usr/bin/env python3
"""A WS-Management stand-in for a Windows host, for tests.

It speaks the protocol Windows Remote Shell speaks: NTLM authentication of the connection
(pyspnego's acceptor), message encryption over HTTP (MS-WSMV 2.2.9.1.1), channel binding to
its certificate over HTTPS, and the shell operations Create, Command, Receive, Signal and
Delete. The commands it knows: `qwinsta` (canned sessions, English or Russian), `logoff <id> /v`
(removes the session), `whoami`, `whoami /user /groups /fo csv /nh` (in the local Administrators
group unless `--non-admin`), `hostname`, `ping -n <n> 127.0.0.1` (runs n-1 seconds, so Receive
times out as on Windows), and `powershell -EncodedCommand <b64>` whose
decoded script is appended to the `--record` file as one JSON line.

Output is encoded in the shell's WINRS_CODEPAGE (437, 866 or 65001), as cmd.exe does after
`chcp`, so a client that asks for the wrong code page sees `?` for Cyrillic.

Prints exactly `listening <port>` on stdout once ready.
"""

import argparse
import base64
import hashlib
import http.server
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import xml.etree.ElementTree as ET

import spnego
from spnego.channel_bindings import GssChannelBindings
from spnego._ntlm_raw.messages import Authenticate, AvId, NTClientChallengeV2

NS = {
    "s": "http://www.w3.org/2003/05/soap-envelope",
    "a": "http://schemas.xmlsoap.org/ws/2004/08/addressing",
    "w": "http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd",
    "rsp": "http://schemas.microsoft.com/wbem/wsman/1/windows/shell",
    "x": "http://schemas.xmlsoap.org/ws/2004/09/transfer",
}
SHELL_URI = "http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd"
PROTOCOL = "application/HTTP-SPNEGO-session-encrypted"
BOUNDARY = b"--Encrypted Boundary"
OCTET = b"\tContent-Type: application/octet-stream\r\n"

# (session name, user, id, English state, type); Russian hosts print localised headers/states.
CANNED = [
    ("services", "", 0, "Disc", ""),
    (">console", "Administrator", 1, "Active", ""),
    ("rdp-tcp#12", "jdoe", 2, "Active", "rdpwd"),
    ("rdp-tcp#13", "{cyr}", 3, "Active", "rdpwd"),
    ("", "alice", 4, "Disc", ""),
    ("rdp-tcp", "", 65536, "Listen", "rdpwd"),
]
RU_STATES = {"Active": "Активно", "Disc": "Диск", "Listen": "Прием"}


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.sessions = [list(row) for row in CANNED]
        self.shells = {}  # shell id -> {"codepage": int, "commands": {command id -> [chunks, exit]}}

    def qwinsta(self):
        ru = self.args.lang == "ru"
        if ru:
            lines = [" СЕАНС             ПОЛЬЗОВАТЕЛЬ             ID  СТАТУС  ТИП         УСТР-ВО "]
        else:
            lines = [" SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE "]
        with self.lock:
            for name, user, sid, state, typ in self.sessions:
                user = user.replace("{cyr}", "Иванов" if ru else "ivanov")
                if ru and user == "Administrator":
                    user = "Администратор"
                st = RU_STATES.get(state, state) if ru else state
                marker = ">" if name.startswith(">") else " "
                lines.append(f"{marker}{name.lstrip('>'):<18}{user:<20}{sid:>7}  {st:<8}{typ:<12}")
        return "\r\n".join(lines) + "\r\n"

    def whoami_groups(self):
        ru = self.args.lang == "ru"
        lines = [
            f'"{self.args.user.lower()}","S-1-5-21-1004336348-1177238915-682003330-500"',
            f'"{"Все" if ru else "Everyone"}","{"Хорошо известная группа" if ru else "Well-known group"}","S-1-1-0","Mandatory group, Enabled by default, Enabled group"',
        ]
        if self.args.non_admin:
            lines.append('"BUILTIN\\Remote Management Users","Alias","S-1-5-32-580","Mandatory group, Enabled by default, Enabled group"')
        else:
            name = "BUILTIN\\Администраторы" if ru else "BUILTIN\\Administrators"
            lines.append(f'"{name}","Alias","S-1-5-32-544","Mandatory group, Enabled by default, Enabled group, Group owner"')
        return "\r\n".join(lines) + "\r\n"

    def logoff(self, sid):
        with self.lock:
            for row in self.sessions:
                if row[2] == sid and sid not in (0, 65536):
                    self.sessions.remove(row)
                    return f"Logging off session ID {sid}\r\n", "", 0
        return "", f"Session ID {sid} not found\r\n", 1

    def run(self, command_line):
        text = command_line.strip()
        low = text.lower()
        m = re.match(r"^powershell(?:\.exe)?\s.*-encodedcommand\s+([A-Za-z0-9+/=]+)", text, re.I)
        if m:
            script = base64.b64decode(m.group(1)).decode("utf-16-le")
            if self.args.record:
                with self.lock, open(self.args.record, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"script": script}, ensure_ascii=False) + "\n")
            return "", "", 0
        if low == "qwinsta" or low.startswith("qwinsta "):
            return self.qwinsta(), "", 0
        m = re.match(r"^logoff\s+(\d+)(\s+/v)?\s*$", low)
        if m:
            return self.logoff(int(m.group(1)))
        if low == "whoami":
            return self.args.user.lower() + "\r\n", "", 0
        if re.match(r"^whoami\s+/user\s+/groups\s+/fo\s+csv\s+/nh$", low):
            return self.whoami_groups(), "", 0
        if low == "hostname":
            return "WIN-STANDIN\r\n", "", 0
        name = text.split()[0] if text else ""
        return "", f"'{name}' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n", 1


def encode(text, codepage):
    enc = {437: "cp437", 866: "cp866", 65001: "utf-8"}.get(codepage, "cp437")
    return text.encode(enc, errors="replace")


def envelope(action, relates_to, body):
    return (
        f'<s:Envelope xmlns:s="{NS["s"]}" xmlns:a="{NS["a"]}" xmlns:x="{NS["x"]}" xmlns:w="{NS["w"]}" xmlns:rsp="{NS["rsp"]}">'
        f"<s:Header><a:Action>{action}</a:Action><a:MessageID>uuid:{str(uuid.uuid4()).upper()}</a:MessageID>"
        f"<a:To>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:To>"
        f"<a:RelatesTo>{relates_to}</a:RelatesTo></s:Header><s:Body>{body}</s:Body></s:Envelope>"
    ).encode("utf-8")


def fault(relates_to, code, reason, subcode="w:InternalError"):
    body = (
        f'<s:Fault><s:Code><s:Value>s:Receiver</s:Value><s:Subcode><s:Value>{subcode}</s:Value></s:Subcode></s:Code>'
        f'<s:Reason><s:Text xml:lang="en-US">{reason}</s:Text></s:Reason>'
        f'<s:Detail><f:WSManFault xmlns:f="http://schemas.microsoft.com/wbem/wsman/1/wsmanfault" Code="{code}" Machine="WIN-STANDIN">'
        f"<f:Message>{reason}</f:Message></f:WSManFault></s:Detail></s:Fault>"
    )
    return envelope("http://schemas.dmtf.org/wbem/wsman/1/wsman/fault", relates_to, body)


def handle_soap(state, xml):
    """Returns (status, reply envelope) for one WS-Man request."""
    root = ET.fromstring(xml)
    action = root.findtext("s:Header/a:Action", namespaces=NS) or ""
    message_id = root.findtext("s:Header/a:MessageID", namespaces=NS) or ""
    shell_id = root.findtext("s:Header/w:SelectorSet/w:Selector[@Name='ShellId']", namespaces=NS)
    options = {o.get("Name"): o.text or "" for o in root.findall("s:Header/w:OptionSet/w:Option", NS)}
    timeout_text = root.findtext("s:Header/w:OperationTimeout", namespaces=NS) or "PT60S"
    timeout_match = re.match(r"^PT(\d+(?:\.\d+)?)S$", timeout_text.strip())
    operation_timeout = float(timeout_match.group(1)) if timeout_match else 60.0
    body = root.find("s:Body", NS)
    op = action.rsplit("/", 1)[-1]

    if op == "Create":
        new_id = str(uuid.uuid4()).upper()
        codepage = int(options.get("WINRS_CODEPAGE", "437") or 437)
        with state.lock:
            state.shells[new_id] = {"codepage": codepage, "commands": {}}
        reply = (
            f"<x:ResourceCreated><a:Address>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address>"
            f"<a:ReferenceParameters><w:ResourceURI>{SHELL_URI}</w:ResourceURI>"
            f'<w:SelectorSet><w:Selector Name="ShellId">{new_id}</w:Selector></w:SelectorSet></a:ReferenceParameters></x:ResourceCreated>'
            f"<rsp:Shell><rsp:ShellId>{new_id}</rsp:ShellId><rsp:ResourceUri>{SHELL_URI}</rsp:ResourceUri>"
            f"<rsp:InputStreams>stdin</rsp:InputStreams><rsp:OutputStreams>stdout stderr</rsp:OutputStreams></rsp:Shell>"
        )
        return 200, envelope("http://schemas.xmlsoap.org/ws/2004/09/transfer/CreateResponse", message_id, reply)

    with state.lock:
        shell = state.shells.get(shell_id or "")
    if shell is None:
        return 500, fault(message_id, 2150858843, f"The request for the Windows Remote Shell with ShellId {shell_id} failed because the shell was not found.")

    if op == "Command":
        command = body.findtext("rsp:CommandLine/rsp:Command", namespaces=NS) or ""
        arguments = [a.text or "" for a in body.findall("rsp:CommandLine/rsp:Arguments", NS)]
        command_line = " ".join([command] + arguments)
        ping = re.match(r"^ping\s+-n\s+(\d{1,3})\s+127\.0\.0\.1$", command_line.strip(), re.I)
        if ping:
            # A command that runs for a while: n echo requests one second apart.
            count = int(ping.group(1))
            stdout, stderr, code = f"Pinging 127.0.0.1 with 32 bytes of data:\r\n" + "Reply from 127.0.0.1: bytes=32 time<1ms TTL=128\r\n" * count, "", 0
            ready_at = time.monotonic() + max(count - 1, 0)
        else:
            stdout, stderr, code = state.run(command_line)
            ready_at = 0.0
        command_id = str(uuid.uuid4()).upper()
        out = encode(stdout, shell["codepage"])
        # Output comes back over two Receives, as long output does from Windows.
        half = len(out) // 2
        chunks = [(out[:half], b"", False), (out[half:], encode(stderr, shell["codepage"]), True)]
        with state.lock:
            shell["commands"][command_id] = [chunks, code, ready_at]
        reply = f"<rsp:CommandResponse><rsp:CommandId>{command_id}</rsp:CommandId></rsp:CommandResponse>"
        return 200, envelope("http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandResponse", message_id, reply)

    if op == "Receive":
        stream = body.find("rsp:Receive/rsp:DesiredStream", NS)
        command_id = stream.get("CommandId") if stream is not None else None
        with state.lock:
            entry = shell["commands"].get(command_id or "")
        if entry and time.monotonic() < entry[2]:
            # Like Windows: block up to OperationTimeout for output, then fault with TimedOut.
            time.sleep(min(entry[2] - time.monotonic(), operation_timeout))
            if time.monotonic() < entry[2]:
                return 500, fault(message_id, 2150858793, "The WS-Management service cannot complete the operation within the time specified in OperationTimeout.", "w:TimedOut")
        with state.lock:
            chunk = entry[0].pop(0) if entry and entry[0] else None
        if chunk is None:
            return 500, fault(message_id, 2150858843, "The command was not found.")
        out, err, done = chunk
        streams = f'<rsp:Stream Name="stdout" CommandId="{command_id}">{base64.b64encode(out).decode()}</rsp:Stream>' if out else ""
        if err:
            streams += f'<rsp:Stream Name="stderr" CommandId="{command_id}">{base64.b64encode(err).decode()}</rsp:Stream>'
        if done:
            streams += f'<rsp:Stream Name="stdout" CommandId="{command_id}" End="true"></rsp:Stream>'
            streams += f'<rsp:Stream Name="stderr" CommandId="{command_id}" End="true"></rsp:Stream>'
            cmd_state = (
                f'<rsp:CommandState CommandId="{command_id}" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done">'
                f"<rsp:ExitCode>{entry[1]}</rsp:ExitCode></rsp:CommandState>"
            )
        else:
            cmd_state = f'<rsp:CommandState CommandId="{command_id}" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Running"/>'
        reply = f'<rsp:ReceiveResponse SequenceID="0">{streams}{cmd_state}</rsp:ReceiveResponse>'
        return 200, envelope("http://schemas.microsoft.com/wbem/wsman/1/windows/shell/ReceiveResponse", message_id, reply)

    if op == "Signal":
        signal = body.find("rsp:Signal", NS)
        with state.lock:
            shell["commands"].pop(signal.get("CommandId") if signal is not None else "", None)
        return 200, envelope("http://schemas.microsoft.com/wbem/wsman/1/windows/shell/SignalResponse", message_id, "<rsp:SignalResponse/>")

    if op == "Delete":
        with state.lock:
            state.shells.pop(shell_id, None)
        return 200, envelope("http://schemas.xmlsoap.org/ws/2004/09/transfer/DeleteResponse", message_id, "")

    return 500, fault(message_id, 2150858817, f"The action {action} is not supported by the service.")


def unwrap(ctx, body):
    text = body.decode("latin-1")
    length = int(re.search(r"Length=(\d+)", text).group(1))
    start = body.index(OCTET) + len(OCTET)
    sig_len = int.from_bytes(body[start : start + 4], "little")
    sig = body[start + 4 : start + 4 + sig_len]
    data = body[start + 4 + sig_len : start + 4 + sig_len + length]
    return ctx.unwrap(sig + data).data


def wrap(ctx, message):
    sealed = ctx.wrap(message, encrypt=True).data
    sig, data = sealed[:16], sealed[16:]
    return (
        BOUNDARY + b"\r\n\tContent-Type: " + PROTOCOL.encode() + b"\r\n"
        b"\tOriginalContent: type=application/soap+xml;charset=UTF-8;Length=" + str(len(message)).encode() + b"\r\n"
        + BOUNDARY + b"\r\n" + OCTET + len(sig).to_bytes(4, "little") + sig + data + BOUNDARY + b"--\r\n"
    )


def make_handler(state, ssl_ctx, cbt_hash):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "Microsoft-HTTPAPI/2.0"

        def setup(self):
            # Headers and body go out as separate writes; without this Nagle holds the body back
            # for the client's delayed ACK on every request.
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if ssl_ctx is not None:
                self.request = ssl_ctx.wrap_socket(self.request, server_side=True)
            super().setup()
            # NTLM authenticates the connection: its context lives as long as the socket.
            self.ctx = None
            self.authenticated = False

        def log_message(self, *args):
            pass

        def reply(self, status, body=b"", headers=None):
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def deny(self):
            self.ctx = None
            self.authenticated = False
            self.reply(401, headers={"WWW-Authenticate": "Negotiate"})

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
            if self.path.lower() != "/wsman":
                return self.reply(404)
            auth = self.headers.get("Authorization", "")
            m = re.match(r"^(Negotiate|NTLM)\s+([A-Za-z0-9+/=]+)$", auth.strip(), re.I)
            if m:
                token = base64.b64decode(m.group(2))
                kind = int.from_bytes(token[8:12], "little") if token[:8] == b"NTLMSSP\x00" else 0
                if kind == 1:
                    bindings = GssChannelBindings(application_data=b"tls-server-end-point:" + cbt_hash) if cbt_hash else None
                    self.ctx = spnego.server(protocol="ntlm", channel_bindings=bindings)
                    self.authenticated = False
                    challenge = self.ctx.step(token)
                    return self.reply(401, headers={"WWW-Authenticate": "Negotiate " + base64.b64encode(challenge).decode()})
                if kind != 3 or self.ctx is None:
                    return self.deny()
                try:
                    if cbt_hash:
                        # CbtHardeningLevel Strict: an HTTPS client must bind to this certificate.
                        auth_msg = Authenticate.unpack(token)
                        pairs = NTClientChallengeV2.unpack(auth_msg.nt_challenge_response[16:]).av_pairs
                        if pairs.get(AvId.channel_bindings, b"\x00" * 16) == b"\x00" * 16:
                            return self.deny()
                    self.ctx.step(token)
                except Exception:
                    return self.deny()
                self.authenticated = True
            elif not self.authenticated:
                return self.deny()

            if not body:
                return self.reply(200)
            encrypted = self.headers.get("Content-Type", "").startswith("multipart/encrypted")
            if ssl_ctx is None and not encrypted:
                # AllowUnencrypted is false on Windows by default: clear SOAP over HTTP is refused.
                return self.reply(400)
            try:
                xml = unwrap(self.ctx, body) if encrypted else body
            except Exception:
                return self.reply(400)
            status, out = handle_soap(state, xml)
            if encrypted:
                ctype = f'multipart/encrypted;protocol="{PROTOCOL}";boundary="Encrypted Boundary"'
                return self.reply(status, wrap(self.ctx, out), {"Content-Type": ctype})
            return self.reply(status, out, {"Content-Type": "application/soap+xml;charset=UTF-8"})

    return Handler


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that drops the connection or refuses the certificate is not the peer's error.
        pass


def self_signed(workdir, cert_out):
    key = os.path.join(workdir, "key.pem")
    cert = os.path.join(workdir, "cert.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    if cert_out:
        with open(cert, "rb") as src, open(cert_out, "wb") as dst:
            dst.write(src.read())
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    with open(cert, "r") as fh:
        der = ssl.PEM_cert_to_DER_cert(fh.read())
    return ctx, hashlib.sha256(der).digest()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--user", required=True, help="DOMAIN\\user or user@domain")
    p.add_argument("--password", required=True)
    p.add_argument("--https", action="store_true")
    p.add_argument("--lang", choices=["en", "ru"], default="en")
    p.add_argument("--record", help="append the PowerShell scripts run to this file (JSON lines)")
    p.add_argument("--non-admin", action="store_true", help="the account is not in the local Administrators group")
    p.add_argument("--cert-out", help="write the generated HTTPS certificate (PEM) here")
    args = p.parse_args()

    workdir = tempfile.mkdtemp(prefix="winrm-peer-")
    creds = os.path.join(workdir, "ntlm-users")
    with open(creds, "w") as fh:
        if "\\" in args.user:
            domain, user = args.user.split("\\", 1)
            fh.write(f"{domain}:{user}:{args.password}\n:{user}@{domain}:{args.password}\n")
        else:
            fh.write(f":{args.user}:{args.password}\n")
    os.environ["NTLM_USER_FILE"] = creds

    ssl_ctx, cbt_hash = self_signed(workdir, args.cert_out) if args.https else (None, None)
    server = Server((args.host, args.port), make_handler(State(args), ssl_ctx, cbt_hash))
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
