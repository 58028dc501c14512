import asyncio

import httpx


async def poll(url: str) -> int:
    async with httpx.AsyncClient() as client:
        return (await client.get(url)).status_code
