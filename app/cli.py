"""Command line: ``flask --app wsgi users …``, ``migrate``, ``backup``."""

from __future__ import annotations

import click
from flask import Flask
from flask.cli import AppGroup

from store import users
from store.db import backup_to, database
from store.schema import migrate


def register_cli(app: Flask) -> None:
    group = AppGroup("users", help="Manage users and their application passwords.")

    @group.command("create")
    @click.argument("name")
    @click.option("--role", required=True, type=click.Choice(users.ROLES))
    @click.option("--email", default="")
    def create(name, role, email):
        """Create a user; prints its application password on the last line."""
        with database.connection_context():
            try:
                user, password = users.create_user(name, role, email)
            except users.UserError as error:
                raise click.ClickException(str(error)) from None
        click.echo(f"Created {role} {user.login} (id {user.id}). Application password:")
        click.echo(password)

    @group.command("password")
    @click.argument("name")
    def password(name):
        """Issue another application password; printed on the last line."""
        with database.connection_context():
            try:
                secret = users.issue_password(name)
            except users.UserError as error:
                raise click.ClickException(str(error)) from None
        click.echo(f"New application password for {name}:")
        click.echo(secret)

    @group.command("list")
    def list_():
        """List users, their roles and how many active passwords they have."""
        with database.connection_context():
            rows = users.list_users()
        click.echo(f"{'id':>4}  {'login':<20} {'role':<14} {'passwords':>9}  email")
        for row in rows:
            click.echo(
                f"{row['id']:>4}  {row['login']:<20} {row['role']:<14} "
                f"{row['passwords']:>9}  {row['email']}"
            )

    @group.command("revoke")
    @click.argument("name")
    def revoke(name):
        """Revoke all application passwords of a user."""
        with database.connection_context():
            try:
                count = users.revoke_passwords(name)
            except users.UserError as error:
                raise click.ClickException(str(error)) from None
        click.echo(f"Revoked {count} application password(s) of {name}.")

    app.cli.add_command(group)

    @app.cli.command("migrate")
    def migrate_command():
        """Create or migrate the database schema."""
        with database.connection_context():
            version = migrate()
        click.echo(f"Database at schema version {version}.")

    @app.cli.command("backup")
    @click.argument("path")
    def backup_command(path):
        """Write a consistent online copy of the database to PATH."""
        with database.connection_context():
            backup_to(path)
        click.echo(f"Backed up to {path}.")
