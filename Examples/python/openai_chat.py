"""parley serve's chat completions through the official `openai` Python package.

    scripts/setup          # makes .build/openai-venv with the openai package
    .build/debug/parley serve --port 8080 &
    .build/openai-venv/bin/python Examples/python/openai_chat.py http://127.0.0.1:8080/v1

Prints the streamed translation, the number of content chunks and the usage
total, then a whole (non-streamed) translation and an answer: with no prompt
asking for a translation, parley serve answers with its offline assistant.
"""
import sys

from openai import OpenAI

client = OpenAI(base_url=sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/v1", api_key="unused")
stream = client.chat.completions.create(
    model="gpt-4o-mini",
    stream=True,
    stream_options={"include_usage": True},
    messages=[
        {"role": "system", "content": "Translate from English to Spanish."},
        {"role": "user", "content": "The young man went home."},
    ],
)
pieces, usage = [], None
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        pieces.append(chunk.choices[0].delta.content)
    if chunk.usage:
        usage = chunk.usage
print("stream:", "".join(pieces))
print("chunks:", len(pieces), "usage:", usage.total_tokens if usage else None)
whole = client.chat.completions.create(model="gpt-4o-mini", messages=[
    {"role": "system", "content": "Translate into Spanish."},
    {"role": "user", "content": "Good morning."},
])
print("whole:", whole.choices[0].message.content)
answer = client.chat.completions.create(model="gpt-4o-mini", messages=[
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is 12 times 7?"},
])
print("answer:", answer.choices[0].message.content, "model:", answer.model)
