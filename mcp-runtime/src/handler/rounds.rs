//! The input-required rounds of a 2026-07-28 request (multi-round-trip requests, SEP-2322).
//!
//! A 2026-07-28 server sends the client no requests. When the handler of a `tools/call`,
//! `prompts/get` or `resources/read` needs something from the client (the user's input, a sampled
//! message, the roots), it asks for it under a key; the request is then answered with an
//! input-required result listing what was asked, and the client retries the request with its
//! answers in `inputResponses`. The handler runs again from the start and finds the answers.
//!
//! The answers of earlier rounds, and any state the handler keeps, travel in `requestState`,
//! sealed by the server's [`RequestStateCodec`] so that a client cannot forge it, nor use it on
//! another request, for another principal (issuer, subject and client of the access token) or
//! after it expires: a handler that asks for one thing per round still sees every answer of the
//! rounds before. A sealed state opens once: sent again, it is refused, unless the codec is
//! [`reusable`](RequestStateCodec::reusable) (see [`request_state`](super::request_state)).

use std::collections::HashMap;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::input::{InputRequest, InputRequests, InputResponse, InputResponses};
use parking_lot::{Mutex, MutexGuard};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::request_state::{RequestBinding, RequestStateCodec};

/// What `requestState` carries between rounds.
#[derive(Serialize, Deserialize, Default)]
struct Carried {
    /// The answers of earlier rounds that the handler used.
    #[serde(default)]
    answers: InputResponses,
    /// The handler's own state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    state: Option<Value>,
}

/// The rounds of one request: the answers known so far, and what this round asks for.
pub(crate) struct Rounds {
    binding: RequestBinding,
    answers: InputResponses,
    previous_state: Option<Value>,
    round: Mutex<Round>,
}

/// What the handler did in this round.
#[derive(Default)]
struct Round {
    /// The keys of answers the handler used.
    used: Vec<String>,
    /// What it asked for.
    asked: InputRequests,
    /// The state it wants back.
    state: Option<Value>,
    /// How many automatic keys of each method it took.
    counters: HashMap<&'static str, u32>,
}

impl Rounds {
    /// The rounds of a request bound to `binding`, with the client's `responses` and the
    /// `request_state` it echoed, opened with `codec`; a state that does not open (tampered,
    /// expired, issued for another request) refuses the request.
    pub(crate) fn new(
        binding: RequestBinding,
        responses: Option<InputResponses>,
        request_state: Option<&str>,
        codec: &RequestStateCodec,
    ) -> Result<Self, ErrorObject> {
        let carried = match request_state {
            None => Carried::default(),
            Some(token) => {
                let data = codec.open(token, &binding)?;
                serde_json::from_value(data).map_err(|_| {
                    ErrorObject::invalid_params("requestState does not hold what this server wrote")
                })?
            }
        };
        let mut answers = carried.answers;
        answers.extend(responses.unwrap_or_default());
        Ok(Rounds {
            binding,
            answers,
            previous_state: carried.state,
            round: Mutex::new(Round::default()),
        })
    }

    fn round(&self) -> MutexGuard<'_, Round> {
        self.round.lock()
    }

    /// The next automatic key for a request of `method` (`elicitation/create#1`, …): the same on
    /// every round as long as the handler asks in the same order.
    pub(crate) fn next_key(&self, method: &'static str) -> String {
        let mut round = self.round();
        let n = round.counters.entry(method).or_insert(0);
        *n += 1;
        format!("{method}#{n}")
    }

    /// The client's answer under `key`, if it gave one (in this retry or an earlier one).
    pub(crate) fn answer(&self, key: &str) -> Option<InputResponse> {
        let answer = self.answers.get(key)?.clone();
        let mut round = self.round();
        if !round.used.iter().any(|k| k == key) {
            round.used.push(key.to_owned());
        }
        Some(answer)
    }

    /// Asks the client for `request` under `key` (answered by the next retry).
    pub(crate) fn ask(&self, key: String, request: InputRequest) {
        self.round().asked.insert(key, request);
    }

    /// The state the handler kept in the previous round.
    pub(crate) fn previous_state(&self) -> Option<&Value> {
        self.previous_state.as_ref()
    }

    /// Keeps `state` for the next round.
    pub(crate) fn keep_state(&self, state: Value) {
        self.round().state = Some(state);
    }

    /// What this round asked for, and the state to hand out with it (the answers used so far
    /// and the handler's state, sealed); `None` when the handler asked for nothing.
    pub(crate) fn outcome(
        &self,
        codec: &RequestStateCodec,
    ) -> Option<(InputRequests, Option<String>)> {
        let round = self.round();
        if round.asked.is_empty() {
            return None;
        }
        let answers: InputResponses = round
            .used
            .iter()
            .filter_map(|key| Some((key.clone(), self.answers.get(key)?.clone())))
            .collect();
        let carried = Carried {
            answers,
            state: round.state.clone(),
        };
        let sealed = (!carried.answers.is_empty() || carried.state.is_some()).then(|| {
            let data = serde_json::to_value(&carried).expect("carried state serializes");
            codec.seal(&self.binding, &data)
        });
        Some((round.asked.clone(), sealed))
    }
}
