"""SMTP delivery with the standard library's client, run off the event loop. Host, port,
credentials and TLS mode come from the environment (SMTP_* settings)."""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from services.notifications.outgoing import OutgoingMessage

__all__ = ["SmtpProvider"]


class SmtpProvider:
    id = "smtp"

    def __init__(
        self, host: str, port: int = 587, *, username: str | None = None, password: str | None = None,
        tls: str = "starttls", sender: str = "no-reply@localhost", timeout: float = 30.0,
    ):
        if tls not in ("starttls", "ssl", "none"):
            raise ValueError("tls must be starttls, ssl or none")
        self.host, self.port, self.username, self.password = host, port, username, password
        self.tls, self.sender, self.timeout = tls, sender, timeout

    @classmethod
    def from_settings(cls, settings) -> "SmtpProvider":
        return cls(
            settings.smtp_host, settings.smtp_port, username=settings.smtp_username,
            password=settings.smtp_password, tls=settings.smtp_tls, sender=settings.smtp_from,
        )

    async def send(self, message: OutgoingMessage) -> None:
        await asyncio.to_thread(self._send, self._email(message))

    def _email(self, message: OutgoingMessage) -> EmailMessage:
        email = EmailMessage()
        email["From"], email["To"], email["Subject"] = self.sender, message.to, message.subject
        email["Date"] = formatdate(localtime=False)
        domain = self.sender.rpartition("@")[2] or "localhost"
        # Stable per notification: a send repeated after an unknown outcome carries the same id,
        # which mail systems use to drop the duplicate.
        email["Message-ID"] = f"<{message.message_id}@{domain}>" if message.message_id else make_msgid(domain=domain)
        email.set_content(message.body)
        if message.html:
            email.add_alternative(message.html, subtype="html")
        return email

    def _send(self, email: EmailMessage) -> None:
        context = ssl.create_default_context()
        if self.tls == "ssl":
            client: smtplib.SMTP = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout, context=context)
        else:
            client = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        with client:
            if self.tls == "starttls":
                client.starttls(context=context)
            if self.username:
                client.login(self.username, self.password or "")
            client.send_message(email)
