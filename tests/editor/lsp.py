"""A small Language Server Protocol client: starts yaml-language-server
over stdio and speaks JSON-RPC to it the way an editor does, recording
every message both ways in a transcript.

    with Server() as server:
        uri = server.open("schema/particles.yaml")
        diagnostics = server.diagnostics(uri)
        items = server.completion(uri, line, character)

Lines and characters count from 0, as in LSP.
"""
import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Installed by tools/deps.sh (the build's dependency step).
SERVER = REPO / "build" / "npm" / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
TIMEOUT = 60.0  # seconds to wait for any one answer: a loaded machine is slow to start node

# What an editor tells the server: validate, complete and hover, and never
# fetch the schema store's catalogue from the network.
SETTINGS = {
    "yaml": {
        "validate": True,
        "hover": True,
        "completion": True,
        "format": {"enable": False},
        "schemaStore": {"enable": False},
        "schemas": {},
    }
}


class Server:
    def __init__(self, transcript=None):
        self.transcript = transcript  # a list that gets one line per message, or None
        self.process = None
        self.next_id = 0
        self.answers = {}
        self.published = {}  # uri -> the diagnostics last published for it
        self.events = queue.Queue()
        self.versions = {}

    def __enter__(self):
        if not SERVER.exists():
            raise FileNotFoundError(f"{SERVER} is missing: run sh tools/deps.sh (it installs yaml-language-server)")
        self.process = subprocess.Popen(["node", str(SERVER), "--stdio"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO)
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {
            "processId": os.getpid(),
            "rootUri": REPO.as_uri(),
            "capabilities": {
                "workspace": {"configuration": True},
                "textDocument": {
                    "publishDiagnostics": {},
                    "hover": {"contentFormat": ["markdown", "plaintext"]},
                    "completion": {"completionItem": {"snippetSupport": True,
                                                      "documentationFormat": ["markdown", "plaintext"]}},
                },
            },
        })
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": SETTINGS})
        return self

    def __exit__(self, *exc):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()

    # --- the protocol ---------------------------------------------------------

    def _send(self, message):
        message["jsonrpc"] = "2.0"
        self._log("->", message)
        body = json.dumps(message).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.events.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            self.events.put(json.loads(stream.read(length)))

    def _pump(self, until, what):
        """Handle the server's messages until `until()` holds."""
        deadline = time.monotonic() + TIMEOUT
        while not until():
            try:
                message = self.events.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise TimeoutError(f"yaml-language-server: no {what} within {TIMEOUT:.0f} s") from None
            if message is None:
                raise RuntimeError("yaml-language-server exited")
            self._log("<-", message)
            self._handle(message)

    def _handle(self, message):
        if "id" in message and "method" in message:  # a request from the server
            result = None
            if message["method"] == "workspace/configuration":
                result = [SETTINGS.get(item["section"]) if "section" in item else SETTINGS
                          for item in message["params"]["items"]]
            self._send({"id": message["id"], "result": result})
        elif "id" in message:
            self.answers[message["id"]] = message
        elif message.get("method") == "textDocument/publishDiagnostics":
            params = message["params"]
            self.published[params["uri"]] = params["diagnostics"]

    def request(self, method, params):
        self.next_id += 1
        ident = self.next_id
        self._send({"id": ident, "method": method, "params": params})
        self._pump(lambda: ident in self.answers, f"answer to {method}")
        answer = self.answers.pop(ident)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def notify(self, method, params):
        self._send({"method": method, "params": params})

    def _log(self, direction, message):
        if self.transcript is not None:
            self.transcript.append(f"{direction} {json.dumps(message, ensure_ascii=False)}")

    # --- what an editor does --------------------------------------------------

    def open(self, path, text=None, uri=None):
        """Open the file at `path` (relative to the repository) as an editor
        would, with `text` in place of its contents if given; returns its URI."""
        path = REPO / path
        uri = uri or path.as_uri()
        if text is None:
            text = path.read_text(encoding="utf-8")
        self.published.pop(uri, None)
        self.versions[uri] = 1
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                              "text": text}})
        return uri

    def close(self, uri):
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def diagnostics(self, uri):
        """The diagnostics the server publishes for an opened document."""
        self._pump(lambda: uri in self.published, f"diagnostics for {uri}")
        return self.published[uri]

    def completion(self, uri, line, character):
        """The completion items offered at (line, character)."""
        result = self.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                          "position": {"line": line, "character": character}})
        return result["items"] if isinstance(result, dict) else (result or [])

    def hover(self, uri, line, character):
        """The hover text at (line, character), or '' when there is none."""
        result = self.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                     "position": {"line": line, "character": character}})
        if not result:
            return ""
        contents = result["contents"]
        return contents["value"] if isinstance(contents, dict) else str(contents)
