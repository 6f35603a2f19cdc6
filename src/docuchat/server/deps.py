"""Dependencies of the routes, as ``Annotated`` aliases: ``user: CurrentUser`` and so on.

The trivial ones are ``async def``: FastAPI runs a plain ``def`` dependency on a
worker thread, a hop that costs more than the lookup itself.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from docuchat.errors import AuthError
from docuchat.server.guard import USER_STATE
from docuchat.server.services import Services
from docuchat.store import Store
from docuchat.store.accounts import Accounts, User

_bearer = HTTPBearer(auto_error=False, description="An API key from `docuchat users add NAME`")


async def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_store(services: ServicesDep) -> Store:
    return services.store


async def get_accounts(services: ServicesDep) -> Accounts:
    return services.accounts


StoreDep = Annotated[Store, Depends(get_store)]
AccountsDep = Annotated[Accounts, Depends(get_accounts)]


async def get_current_user(
    request: Request,
    _scheme: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    """The key's owner, as the request guard found it before the body was read.

    ``_scheme`` only declares the bearer scheme in the OpenAPI schema.
    """
    user: User | None = getattr(request.state, USER_STATE, None)
    if user is None:  # a route outside the guard's protected paths asked for a user
        raise AuthError("this route is not behind the API key check")
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]
