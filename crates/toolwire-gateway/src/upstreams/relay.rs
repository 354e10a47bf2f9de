//! What passes between a client and an upstream while a call runs: the upstream's progress goes
//! to the client that asked for it (`_meta.progressToken`), under the client's own token — the
//! upstream sees the token rmcp gives each request, so two clients' tokens never meet; the
//! upstream's requests for elicitation or sampling go to the client whose call they are about,
//! when it declared the capability (over its session, or as input required to a stateless
//! client: `super::park`), else they are declined; and a call the
//! gateway stops waiting for (its limit passed, the client cancelled it) is cancelled at the
//! upstream with `notifications/cancelled`, a task of the upstream's with its revision's
//! `tasks/cancel`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CancelTaskParams, CancelledNotificationParam, NumberOrString, ProgressNotificationParam,
    ProgressToken, RequestId,
};
use rmcp::service::{InboundStreamOrigin, Peer, RoleClient, RoleServer, ServiceError};
use tokio::sync::mpsc;

/// How many notifications about calls not routed (yet) are kept: the upstream may report
/// progress before the gateway has noted where it goes, and most calls ask for none.
const EARLY: usize = 64;
/// How many notifications of one call wait for its client: an upstream may send progress far
/// faster than a client reads it, and progress is advice, so past this the newest are dropped
/// (what is passed on still rises) rather than queued without bound.
const QUEUED: usize = 64;

/// Where the progress of each call in flight goes, by the token the upstream was given, and who
/// may be asked on its behalf, by the id of the upstream request.
#[derive(Default)]
pub(super) struct Relays {
    inner: Mutex<Routes>,
    /// Every call in flight, by the id of its upstream request, with the client that may be
    /// asked on its behalf (none: that client cannot be asked).
    askers: Mutex<HashMap<RequestId, Option<Asker>>>,
}

/// The client of a call in flight that the upstream may ask through the gateway: how it is
/// reached and what it declared it can be asked.
#[derive(Clone)]
pub(super) struct Asker {
    /// Where its questions go.
    pub(super) client: Client,
    /// It declared elicitation (form requests).
    pub(super) elicitation: bool,
    /// It declared sampling.
    pub(super) sampling: bool,
}

/// How a client is asked what its upstream asks.
#[derive(Clone)]
pub(super) enum Client {
    /// Over its connection: a session on a handshake revision.
    Session(Peer<RoleServer>),
    /// As input required: a stateless 2026-07-28 client, whose call is parked meanwhile
    /// (`super::park`).
    Parked(mpsc::Sender<super::park::Question>),
}

#[derive(Default)]
struct Routes {
    /// Each route's notifications go, in order, to a task that passes them on.
    routes: HashMap<NumberOrString, mpsc::Sender<ProgressNotificationParam>>,
    early: VecDeque<ProgressNotificationParam>,
}

impl Relays {
    /// Routes the upstream's progress under `upstream` to `client` under `token` until the guard
    /// is dropped; what came before the route is passed on first.
    pub(super) fn route(
        self: &Arc<Self>,
        upstream: ProgressToken,
        client: Peer<RoleServer>,
        token: ProgressToken,
    ) -> RelayGuard {
        let (sender, mut notes) = mpsc::channel::<ProgressNotificationParam>(QUEUED);
        let task = tokio::spawn(async move {
            // The client is promised rising progress; notes the upstream's flood brings out of
            // order (rmcp hands each to a task of its own) or that do not rise are not passed on.
            let mut last = f64::NEG_INFINITY;
            while let Some(mut note) = notes.recv().await {
                if note.progress <= last {
                    continue;
                }
                last = note.progress;
                note.progress_token = token.clone();
                if let Err(error) = client.notify_progress(note).await {
                    tracing::debug!(%error, "a progress notification could not be passed on");
                }
            }
        });
        let key = upstream.0;
        let mut inner = self.lock();
        let (early, later): (VecDeque<_>, VecDeque<_>) =
            inner.early.drain(..).partition(|note| note.progress_token.0 == key);
        inner.early = later;
        for note in early {
            let _ = sender.try_send(note);
        }
        inner.routes.insert(key.clone(), sender);
        RelayGuard { relays: Arc::clone(self), key, task: Some(task) }
    }

    /// Passes one progress notification of the upstream on to the client whose call it is about;
    /// one about no call routed is kept a while (its route may be on its way). One that finds its
    /// client's queue full is dropped.
    pub(super) fn progress(&self, note: ProgressNotificationParam) {
        let mut inner = self.lock();
        match inner.routes.get(&note.progress_token.0) {
            Some(route) => {
                if let Err(mpsc::error::TrySendError::Full(_)) = route.try_send(note) {
                    tracing::debug!(
                        "a progress notification was dropped: its client reads slower than the upstream sends"
                    );
                }
            }
            None => {
                if inner.early.len() == EARLY {
                    inner.early.pop_front();
                }
                inner.early.push_back(note);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The upstream request `id` is in flight until the guard is dropped, and `asker` (if any)
    /// may be asked on its behalf.
    pub(super) fn ask_route(self: &Arc<Self>, id: RequestId, asker: Option<Asker>) -> AskGuard {
        self.askers().insert(id.clone(), asker);
        AskGuard { relays: Arc::clone(self), id }
    }

    /// Who answers a request of the upstream that arrived on `origin`: the client of the call
    /// whose answer stream carried it (Streamable HTTP says which); where the transport cannot
    /// say (stdio), the client of the one call in flight, and nobody when there are several —
    /// counting the calls whose clients cannot be asked, so that one caller never sees a
    /// question meant for another.
    pub(super) fn asker_for(&self, origin: Option<&InboundStreamOrigin>) -> Option<Asker> {
        let askers = self.askers();
        match origin {
            Some(InboundStreamOrigin::OutboundRequest(id)) => askers.get(id).cloned().flatten(),
            _ if askers.len() == 1 => askers.values().next().cloned().flatten(),
            _ => None,
        }
    }

    /// Whether the call a request arriving on `origin` is about is noted yet (the upstream may
    /// ask before it is): that call's, or, where the transport cannot say, any call's.
    pub(super) fn noted(&self, origin: Option<&InboundStreamOrigin>) -> bool {
        let askers = self.askers();
        match origin {
            Some(InboundStreamOrigin::OutboundRequest(id)) => askers.contains_key(id),
            _ => !askers.is_empty(),
        }
    }

    fn askers(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Option<Asker>>> {
        self.askers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The client of one call, open to the upstream's requests until dropped.
pub(super) struct AskGuard {
    relays: Arc<Relays>,
    id: RequestId,
}

impl Drop for AskGuard {
    fn drop(&mut self) {
        self.relays.askers().remove(&self.id);
    }
}

/// How long an answer waits for the progress before it to reach its client.
const DRAIN_LIMIT: Duration = Duration::from_secs(1);

/// The route of one call's progress, removed when dropped (its task ends once what it holds is
/// passed on).
pub(super) struct RelayGuard {
    relays: Arc<Relays>,
    key: NumberOrString,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl RelayGuard {
    /// The upstream answered: the progress it sent before the answer reaches the client before
    /// the answer does. rmcp hands each notification to a task of its own, so those still
    /// running get their turn first; then the route closes and what it holds is passed on
    /// (within [`DRAIN_LIMIT`], so that a slow client never holds the answer long).
    pub(super) async fn finish(mut self) {
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
        self.relays.lock().routes.remove(&self.key);
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(DRAIN_LIMIT, task).await;
        }
    }
}

impl Drop for RelayGuard {
    fn drop(&mut self) {
        self.relays.lock().routes.remove(&self.key);
    }
}

/// Cancels a request, or an upstream task, at the upstream when dropped before it ended.
pub(super) struct CancelOnDrop {
    peer: Peer<RoleClient>,
    what: Option<Cancel>,
}

/// What a [`CancelOnDrop`] cancels.
enum Cancel {
    /// A request in flight: `notifications/cancelled`.
    Request(RequestId),
    /// A task the upstream runs: `tasks/cancel` of its kind, waited for at most the limit.
    Task(String, Duration, TaskKind),
}

/// Which revision's tasks an upstream's task is: their `tasks/cancel` answers differ.
#[derive(Clone, Copy, Debug)]
pub(super) enum TaskKind {
    /// The tasks extension (2026-07-28), which rmcp types.
    Extension,
    /// 2025-11-25's experimental core tasks, sent as requests rmcp does not type.
    Core,
}

impl CancelOnDrop {
    /// Armed for the request `id`.
    pub(super) fn new(peer: Peer<RoleClient>, id: RequestId) -> Self {
        Self { peer, what: Some(Cancel::Request(id)) }
    }

    /// Armed for the upstream's task `task_id` of `kind`, its `tasks/cancel` within `limit`.
    pub(super) fn task(
        peer: Peer<RoleClient>,
        task_id: String,
        limit: Duration,
        kind: TaskKind,
    ) -> Self {
        Self { peer, what: Some(Cancel::Task(task_id, limit, kind)) }
    }

    /// It ended: nothing to cancel.
    pub(super) fn disarm(&mut self) {
        self.what = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(what) = self.what.take() else { return };
        let peer = self.peer.clone();
        // A drop cannot wait: the cancellation goes from a task of its own.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        runtime.spawn(async move {
            let sent = match what {
                Cancel::Request(id) => {
                    let why = "the gateway stopped waiting for this call";
                    peer.notify_cancelled(CancelledNotificationParam::new(
                        Some(id),
                        Some(why.into()),
                    ))
                    .await
                }
                Cancel::Task(task_id, limit, kind) => {
                    let cancel = async {
                        match kind {
                            TaskKind::Extension => {
                                peer.cancel_task(CancelTaskParams::new(task_id)).await
                            }
                            // The answer (the cancelled task) says nothing the gateway needs.
                            TaskKind::Core => {
                                super::task::custom(&peer, "tasks/cancel", &task_id).await.map(drop)
                            }
                        }
                    };
                    tokio::time::timeout(limit, cancel)
                        .await
                        .unwrap_or(Err(ServiceError::Timeout { timeout: limit }))
                }
            };
            if let Err(error) = sent {
                tracing::debug!(%error, "a cancellation could not be sent upstream");
            }
        });
    }
}
