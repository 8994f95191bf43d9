#!/usr/bin/env python3
"""Drives pywinrm, a real third-party WinRM client, against an endpoint: lists sessions with
`qwinsta`, logs one off with `logoff <id> /v`, lists again. Prints one JSON object."""
import json
import sys

import winrm

endpoint, user, password, session_id, codepage = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
session = winrm.Session(endpoint, auth=(user, password), transport="ntlm", server_cert_validation="ignore")
protocol = session.protocol
encoding = "cp866" if codepage == 866 else "cp437"


def run(command, args=()):
    shell = protocol.open_shell(codepage=codepage)
    try:
        command_id = protocol.run_command(shell, command, list(args))
        out, err, code = protocol.get_command_output(shell, command_id)
        protocol.cleanup_command(shell, command_id)
    finally:
        protocol.close_shell(shell, close_session=False)
    return {"stdout": out.decode(encoding), "stderr": err.decode(encoding), "exit": code}


before = run("qwinsta")
logoff = run("logoff", [session_id, "/v"])
after = run("qwinsta")
try:
    winrm.Session(endpoint, auth=(user, password + "x"), transport="ntlm", server_cert_validation="ignore").run_cmd("qwinsta")
    wrong_password = "accepted"
except winrm.exceptions.InvalidCredentialsError:
    wrong_password = "rejected"
print(json.dumps({"before": before, "logoff": logoff, "after": after, "wrong_password": wrong_password, "encrypted": session.protocol.transport.encryption is not None}))
