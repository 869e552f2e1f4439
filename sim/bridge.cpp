// Thin C++17 layer over SimGrid's s4u API, 3.32 or 4.x (see bridge.h). Everything
// arlab-specific (scheduling, shortcuts, statistics) lives in the C files.
#include "bridge.h"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <xbt/config.hpp>
#include <simgrid/mailbox.h>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
// SimGrid 3.32's internal ActorImpl (sim/simgrid_internal.cmake takes its headers from
// SimGrid's 3.32 sdist at configure time and defines AR_SG_INTERNAL_332 when they compile here).
#if defined(AR_SG_INTERNAL_332) && SIMGRID_VERSION == 33200
#include "src/kernel/actor/ActorImpl.hpp"
#include <simgrid/kernel/resource/Action.hpp>
#define AR_SG_FIX 1
#else
#define AR_SG_FIX 0
#endif
// SimGrid 4.x: hosts and links through NetZone::add_* (create_* are deprecated), a zone joins the
// engine's root zone through set_parent (the first zone no longer becomes the root), and the
// completion signal is per activity kind (Comm::, Exec::on_completion_cb).
#if SIMGRID_VERSION >= 40000
#define AR_SG4 1
#else
#define AR_SG4 0
#endif

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace sg4 = simgrid::s4u;
namespace skr = simgrid::kernel::routing;

// A host, a split-duplex link, a link of the zone (4.x: add_*; 3.32: create_*).
static sg4::Host *zone_host(sg4::NetZone *nz, const std::string &name, double speed) {
#if AR_SG4
    return nz->add_host(name, speed);
#else
    return nz->create_host(name, speed);
#endif
}
static sg4::SplitDuplexLink *zone_duplex_link(sg4::NetZone *nz, const std::string &name, double bw) {
#if AR_SG4
    return nz->add_split_duplex_link(name, bw);
#else
    return nz->create_split_duplex_link(name, bw);
#endif
}
static sg4::Link *zone_link(sg4::NetZone *nz, const std::string &name, double bw) {
#if AR_SG4
    return nz->add_link(name, bw);
#else
    return nz->create_link(name, bw);
#endif
}

namespace {

// The one netzone: routes come from ar_platform_route on demand.
class ArZone final : public skr::NetZoneImpl {
  public:
    ArZone(const std::string &name, const ar_platform *p, bool arlab_latency)
        : NetZoneImpl(name), p_(p), arlab_latency_(arlab_latency) {}
    ~ArZone() override { std::free(buf_); }
    ArZone(const ArZone &) = delete;
    ArZone &operator=(const ArZone &) = delete;

    std::vector<simgrid::kernel::resource::StandardLinkImpl *> dl; // 2 per arlab link: UP (a->b), DOWN
    // background flow i (scenario): host nranks+2*nvlinks+i, whose route is its cap link, then flow_src's route
    std::vector<simgrid::kernel::resource::StandardLinkImpl *> flow_cap;
    std::vector<int> flow_src, flow_dst;
    int mult = 1; // every link of the next route repeated mult times (a merged flow: ar_sg_comm)
    // a rate bound's link (ar_sg_set_rate), listed once after the next route's links: a FATPIPE link
    // gives every flow across it up to its whole bandwidth, so it bounds that flow's rate alone
    simgrid::kernel::resource::StandardLinkImpl *rate_cap = nullptr;
    // an actor engine's bound per sending host where the bound cannot be the flow's own
    // (ar_sg_put_async_rate): its mailbox comm's route is computed when the receive matches it, the
    // sender's bound is the host's then
    std::vector<simgrid::kernel::resource::StandardLinkImpl *> src_cap;

    // The latency SimGrid would add up for the route between two hosts (AR_SG_ARLAB_LATENCY): the
    // same links as get_local_route, summed in the same order from 0.
    double route_latency(size_t from, size_t to) {
        int n = route((int)from, (int)to, nullptr);
        double lat = 0;
        for (int k = 0; k < n; k++) lat += p_->links[AR_DLINK_LINK(buf_[(size_t)k])].lat_s;
        return lat;
    }

  protected:
    void get_local_route(const skr::NetPoint *src, const skr::NetPoint *dst, skr::Route *into,
                         double *latency) override {
        int n = route((int)src->id(), (int)dst->id(), into);
        for (int k = 0; k < n; k++) {
            ar_dlink dk = buf_[(size_t)k];
            for (int m = 0; m < mult; m++) into->link_list_.push_back(dl[(size_t)dk]);
            // NULL for cross-traffic back routes; none with AR_SG_ARLAB_LATENCY (ar_sg_comm pays it)
            if (latency && !arlab_latency_) *latency += p_->links[AR_DLINK_LINK(dk)].lat_s;
        }
        simgrid::kernel::resource::StandardLinkImpl *cap = rate_cap;
        if (!cap && src->id() < src_cap.size()) cap = src_cap[src->id()];
        if (cap && latency && n > 0) into->link_list_.push_back(cap); // not on a back route
    }

  private:
    // The arlab route between hosts sid and did into buf_ (its length returned); a background flow's
    // host first puts its cap link (no latency) into `into` when given, then takes its source's route.
    int route(int sid, int did, skr::Route *into) {
        int fb = p_->nranks + 2 * p_->nvlinks; // background flow hosts come after the reducing switches'
        int red = 0, s, d = endpoint(did, &red);
        if (sid >= fb) {
            size_t i = (size_t)(sid - fb);
            if (into) into->link_list_.push_back(flow_cap[i]);
            s = flow_src[i];
        } else {
            s = endpoint(sid, nullptr);
        }
        int n = 0; // the buffer grows to the longest route asked for (ar_platform_route_x_append)
        ar_err e;
        if (ar_platform_route_x_append(p_, s, d, red, &buf_, &cap_, 0, &n, &e) != AR_OK)
            throw std::runtime_error(e.msg);
        return n;
    }
    // Host ids: ranks 0..nranks-1, then two per reducing switch k (virtual link
    // nlinks+k): nranks+2k as a copy endpoint, nranks+2k+1 as a reducing destination.
    int endpoint(int id, int *reduce) const {
        if (id < p_->nranks) return id;
        int k = (id - p_->nranks) / 2;
        if (reduce) *reduce = (id - p_->nranks) % 2;
        return AR_EP_NODE(p_->links[p_->nlinks + k].a);
    }
    const ar_platform *p_;
    bool arlab_latency_;
    ar_dlink *buf_ = nullptr;
    size_t cap_ = 0;
};

// SimGrid 3.32 keeps every host-to-host comm (Comm::sendto_init detaches it: CommImpl::detach) and
// every Exec created by the maestro on the maestro's activities_, a std::list, and
// CommImpl::finish / ExecImpl::post list::remove() it: each completion scans every activity in
// flight (ps on tree:ranks=256: 65 280 at once). The bridge runs in the maestro (timers and
// completion callbacks) and keeps each activity alive itself (ArRec::self, then the graveyard), so
// it takes the new activity off that list: remove() then finds nothing to scan. Nothing else reads
// the list for these activities: completion callbacks fire for activities whose actor is the
// maestro (EngineImpl::handle_ended_actions), which the list does not change, and the maestro's
// list is only walked to cancel activities when an actor is killed (never, here). Applied only
// when the library at run time is 3.32.0 too (sg_version_get), and only to the list's last
// element when it is this activity (it was pushed just now).
#if AR_SG_FIX
bool sg_fix_on() {
    static const bool on = [] {
        int maj = 0, min = 0, patch = 0;
        sg_version_get(&maj, &min, &patch);
        return maj == 3 && min == 32 && patch == 0;
    }();
    return on;
}
#endif

size_t sg_unlisted = 0; // activities taken off a list (ar_sg_unlisted: tests)

void sg_unlist(const sg4::Activity *a) {
#if AR_SG_FIX
    if (!sg_fix_on()) return;
    // the maestro in the bridge (timers, completion callbacks); the calling actor in the naive engine
    auto *self = simgrid::kernel::actor::ActorImpl::self();
    if (self && !self->activities_.empty() && self->activities_.back().get() == a->get_impl()) {
        self->activities_.pop_back();
        sg_unlisted++;
    }
#else
    (void)a;
#endif
}

} // namespace

extern "C" void ar_sg_unlist_comm(sg_comm_t c) { sg_unlist(c); }

extern "C" size_t ar_sg_unlisted(void) { return sg_unlisted; }

extern "C" int ar_sg_has_ib(void) { return dlsym(RTLD_DEFAULT, "smpi_main") != nullptr; }

extern "C" const char *ar_sg_fix_info(void) {
#if AR_SG4
    return "off (not needed: SimGrid 4.x keeps an actor's activities in a set)";
#elif AR_SG_FIX
    return sg_fix_on() ? "on" : "off (compiled in, but the SimGrid library loaded is not 3.32.0)";
#else
#ifdef AR_SG_INTERNAL_332
    return "off (not SimGrid 3.32.0)";
#else
    return "off (SimGrid 3.32's internal headers were not available at configure time)";
#endif
#endif
}

// A started activity: keeps the s4u object alive until it completed. A merged flow reports
// more tokens.
struct ArRec {
    uint64_t token;
    sg4::ActivityPtr self;
    std::vector<uint64_t> more;
};

// Flows asked to start at this instant between the same hosts with the same bytes (AR_SG_ARLAB_LATENCY).
struct ArMergeKey {
    size_t from, to;
    uint64_t bytes;
    bool operator==(const ArMergeKey &o) const { return from == o.from && to == o.to && bytes == o.bytes; }
};
struct ArMergeHash {
    size_t operator()(const ArMergeKey &k) const {
        uint64_t h = k.from * UINT64_C(0x9e3779b97f4a7c15) ^ (k.to + UINT64_C(0x632be59bd9b4e019)) * UINT64_C(31);
        h ^= k.bytes + (h << 6) + (h >> 2);
        return (size_t)(h * UINT64_C(0xff51afd7ed558ccd));
    }
};
// A merged flow has at most this many members: its route lists every link that many times.
#define AR_MERGE_MAX 64
// Up to this many groups at one instant are found by a scan, more through a hash map.
#define AR_MERGE_SCAN 16
#define AR_NIL UINT32_MAX

struct ar_sg {
    const ar_platform *p = nullptr;
    ar_sg_hooks hooks{};
    bool has_hooks = false;
    std::vector<std::string> argv_store;
    std::vector<char *> argv;
    int argc = 0;
    sg4::Engine *engine = nullptr;
    ArZone *zone = nullptr;
    std::vector<sg4::Host *> hosts;
    std::vector<sg4::ActivityPtr> graveyard; // finished activities, released at the next step
    bool step_pending = false;
    bool arlab_latency = false; // AR_SG_ARLAB_LATENCY
    // flows waiting for the end of this instant to start, merged by (hosts, bytes); flush_pending: a
    // timer at this instant starts them. Groups in the order of their first flow, each group's tokens
    // in the order asked, linked through mnext; merge_idx finds a group once there are more than
    // AR_MERGE_SCAN (below that a scan is cheaper than hashing). The vectors keep their capacity
    // from instant to instant: no allocation per flow once they have grown (flush_merged).
    struct MergeGroup {
        ArMergeKey k;
        uint32_t first, last; // tokens' indices in mtok
    };
    std::vector<MergeGroup> merge, flushing;
    std::vector<uint64_t> mtok, ftok;
    std::vector<uint32_t> mnext, fnext;
    std::unordered_map<ArMergeKey, size_t, ArMergeHash> merge_idx;
    bool flush_pending = false;
    // flows paying their latency, by the date (its bits) they start: one timer per date, not per
    // flow (a timer per flow scattered the memory of SimGrid's list of comms in flight: ps on
    // tree:ranks=160 took 2.3 times as long). A date's flows are linked in wslab (first and last
    // index by date), in the order asked; freed slots are reused (wfree).
    struct Waiting {
        size_t from, to;
        uint64_t bytes, token;
        uint32_t next;
    };
    std::vector<Waiting> wslab;
    std::vector<uint32_t> wfree;
    std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> waiting;
    // background flow i's SimGrid comm once started (after its latency) and its bytes: what it has
    // carried so far is bytes minus what remains (ar_sg_flow_sent)
    std::vector<sg4::CommPtr> flow_comm;
    std::vector<uint64_t> flow_bytes;
    // rate bounds (ar_sg_set_rate). rate_bw: every distinct bound asked for; rate_cur: the bound of
    // the comms started from now on (an index into rate_bw + 1; 0: none). A comm carries it in its
    // destination host's high bits (AR_RATE_SHIFT) while it waits for its latency or to be merged:
    // flows with different bounds never merge. rate_on_flow (decided at the first bound asked for):
    // the bound is the comm's own max-min variable bound (SimGrid 3.32 with its internal headers; a
    // mailbox comm's is set by the send or receive whose start matched it, ar_sg_get_async_rate),
    // else the comm's route ends with a pool link: one of 32 FATPIPE links made at open (SimGrid adds
    // no link to a sealed zone), given its bandwidth when its rate is first asked for (rate_pool:
    // rate_bw's index -> the pool link, -1 none yet). The pool alone is no per-flow bound under the
    // naive engine's fairbottleneck solver: that takes from a FATPIPE link's remaining bandwidth only
    // the smallest increment of its flows, so a flow runs past the bound where flows of other
    // bottlenecks cross the link too; its mailbox comms keep Comm::set_rate's bound (ar_sg_mbox_rate).
    std::vector<sg4::Link *> rate_link;
    std::vector<double> rate_bw;
    std::vector<int> rate_pool;
    size_t rate_pool_used = 0;
    size_t rate_cur = 0;
    int rate_on_flow = -1; // -1: not decided yet
};

#define AR_SG_NRATES 32
#define AR_RATE_SHIFT 40 // hosts are numbered below 2^40
static size_t host_part(size_t to) { return to & ((size_t(1) << AR_RATE_SHIFT) - 1); }

// Whether a bound is the comm's own max-min variable bound (Action::set_bound once it started:
// only a variable bound, no constraint shared with other flows, so SimGrid's solver couples bounded
// flows only where they share a real link). 3.32 takes no rate on a host-to-host comm (Comm::set_rate
// asserts on sendto_init(from, to)'s comm and never reaches the CommImpl of sendto_init() then
// set_source; 4.1 alike): the comm's action is reached through SimGrid's internal ActivityImpl, so
// only where its headers were compiled in and the library loaded is 3.32.0 (sg_fix_on). Not under
// network/weight-S: CM02 adds weight-S / bandwidth of every route link to a flow's sharing penalty,
// the pool link's too, so dropping that link would move such runs; they keep the pool.
static bool rate_on_flow(ar_sg *s) {
    if (s->rate_on_flow < 0) {
#if AR_SG_FIX
        s->rate_on_flow = sg_fix_on() && !(simgrid::config::get_value<double>("network/weight-S") > 0);
#else
        s->rate_on_flow = 0;
#endif
    }
    return s->rate_on_flow > 0;
}

// The index + 1 of bound rate_Bps in rate_bw (added when new); 0: no bound.
static size_t rate_index(ar_sg *s, double rate_Bps) {
    if (!(rate_Bps > 0)) return 0;
    size_t i = 0;
    while (i < s->rate_bw.size() && s->rate_bw[i] != rate_Bps) i++;
    if (i == s->rate_bw.size()) {
        s->rate_bw.push_back(rate_Bps);
        s->rate_pool.push_back(-1);
    }
    return i + 1;
}

// The pool link of rate_bw[i - 1], given that bandwidth when new (no flow crosses it yet); nullptr
// when the pool has no link left.
// Recorded before set_bandwidth: called from an actor (ar_sg_put_async_rate) that is a simcall,
// which lets other actors run, and ask for rates, before it returns.
static sg4::Link *rate_pool_link(ar_sg *s, size_t i) {
    int k = s->rate_pool[i - 1];
    if (k < 0) {
        if (s->rate_pool_used == s->rate_link.size()) return nullptr;
        k = (int)s->rate_pool_used++;
        s->rate_pool[i - 1] = k;
        s->rate_link[(size_t)k]->set_bandwidth(s->rate_bw[i - 1]);
    }
    return s->rate_link[(size_t)k];
}

extern "C" const char *ar_sg_rate_info(void) {
#if AR_SG4
    return "pool link (SimGrid 4.x takes no rate on a host-to-host comm)";
#elif AR_SG_FIX
    return sg_fix_on() ? "per flow (a pool link under network/weight-S)"
                       : "pool link (the SimGrid library loaded is not 3.32.0)";
#else
    return "pool link (SimGrid 3.32's internal headers were not available at configure time)";
#endif
}

// Reports token done now, and schedules the step hook once per instant.
static void deliver(ar_sg *s, uint64_t token) {
    if (!s->step_pending) {
        s->step_pending = true;
        simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock(), [s]() {
            s->step_pending = false;
            s->graveyard.clear();
            s->hooks.step(s->hooks.ctx);
        });
    }
    s->hooks.done(s->hooks.ctx, token);
}

static void on_completion(ar_sg *s, const sg4::Activity &a) {
    auto *rec = a.get_data<ArRec>();
    if (!rec) return; // not ours (mailbox comms of an actor engine)
    uint64_t token = rec->token;
    std::vector<uint64_t> more = std::move(rec->more);
    s->graveyard.push_back(std::move(rec->self)); // released after every callback of this instant
    delete rec;
    deliver(s, token);
    for (uint64_t t : more) deliver(s, t);
}

extern "C" ar_status ar_sg_open(const ar_platform *p, const char *const *settings, int nsettings, unsigned flags,
                                const ar_sg_hooks *hooks, ar_sg **out, ar_err *e) {
    return ar_sg_open_flows(p, settings, nsettings, flags, hooks, NULL, 0, out, e);
}

extern "C" ar_status ar_sg_open_flows(const ar_platform *p, const char *const *settings, int nsettings, unsigned flags,
                                      const ar_sg_hooks *hooks, const ar_bgflow *flows, int nflows, ar_sg **out,
                                      ar_err *e) {
    *out = nullptr;
    if (sg4::Engine::has_instance())
        return ar_fail(e, AR_EUNSUPPORTED, "SimGrid can run one simulation per process (use the forked mode)");
    auto *s = new (std::nothrow) ar_sg();
    if (!s) return ar_fail(e, AR_ENOMEM, "sim: out of memory");
    s->p = p;
    s->arlab_latency = (flags & AR_SG_ARLAB_LATENCY) != 0;
    // ker_engine's messages are not passed to the root appender (additivity 0): its "Deadlock detected" line
    // is not ours to print; the engines detect a run that ends short (naive: actors that never finished;
    // dataflow: ranks short of their last phase) and say so, or, after a --budget stop, report complete=0
    s->argv_store = {"arlab", "--log=xbt_cfg.thres:warning", "--log=ker_engine.thres:warning",
                     "--log=ker_engine.add:0"};
    for (auto &a : s->argv_store) s->argv.push_back(a.data());
    s->argv.push_back(nullptr);
    s->argc = (int)s->argv_store.size();
    try {
        s->engine = new sg4::Engine(&s->argc, s->argv.data());
        for (int i = 0; i < nsettings; i++) sg4::Engine::set_config(settings[i]);
        s->zone = new ArZone("arlab", p, s->arlab_latency);
#if AR_SG4
        // the engine's root zone ("_world_") sets the models up when it is created; ours inherits them
        s->zone->set_parent(s->engine->get_netzone_root()->get_impl());
#endif
        sg4::NetZone *nz = s->zone->get_iface();
        int nhosts = p->nranks + 2 * p->nvlinks; // ranks, then the reducing switches (ArZone::endpoint)
        s->hosts.reserve((size_t)nhosts);
        char name[32];
        for (int r = 0; r < nhosts; r++) {
            if (r < p->nranks) snprintf(name, sizeof name, "r%d", r);
            else snprintf(name, sizeof name, "sw%d.%s", (r - p->nranks) / 2, (r - p->nranks) % 2 ? "red" : "copy");
            sg4::Host *h = zone_host(nz, name, AR_SG_HOST_SPEED);
            h->seal();
            if (h->get_netpoint()->id() != (unsigned long)r) {
                delete s;
                return ar_fail(e, AR_EBACKEND, "sim: SimGrid numbered host %d as %lu", r, h->get_netpoint()->id());
            }
            s->hosts.push_back(h);
        }
        s->zone->dl.resize(((size_t)p->nlinks + (size_t)p->nvlinks) * 2);
        for (int l = 0; l < p->nlinks + p->nvlinks; l++) { // + the virtual reduction links
            const ar_link *lk = &p->links[l];
            snprintf(name, sizeof name, "l%d", l);
            sg4::SplitDuplexLink *sd = zone_duplex_link(nz, name, ar_link_capacity(lk));
            sd->set_latency(s->arlab_latency ? 0.0 : lk->lat_s);
            sd->seal();
            s->zone->dl[(size_t)AR_DLINK(l, 0)] = sd->get_link_up()->get_impl();
            s->zone->dl[(size_t)AR_DLINK(l, 1)] = sd->get_link_down()->get_impl();
        }
        for (int i = 0; i < nflows; i++) { // scenario flows: a host and a cap link each
            snprintf(name, sizeof name, "f%d", i);
            sg4::Host *h = zone_host(nz, name, AR_SG_HOST_SPEED);
            h->seal();
            if (h->get_netpoint()->id() != (unsigned long)(nhosts + i)) {
                delete s;
                return ar_fail(e, AR_EBACKEND, "sim: SimGrid numbered flow host %d as %lu", i, h->get_netpoint()->id());
            }
            s->hosts.push_back(h);
            snprintf(name, sizeof name, "fcap%d", i);
            // no rate: a cap far above any link (the flow takes what max-min sharing gives it)
            sg4::Link *cap = zone_link(nz, name, flows[i].rate_Bps > 0 ? flows[i].rate_Bps : 1e30);
            cap->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
            cap->seal();
            s->zone->flow_cap.push_back(cap->get_impl());
            s->zone->flow_src.push_back(flows[i].src);
            s->zone->flow_dst.push_back(flows[i].dst);
        }
        s->flow_comm.resize((size_t)nflows);
        s->flow_bytes.resize((size_t)nflows);
        for (int i = 0; i < AR_SG_NRATES; i++) { // rate bounds' links, no bound until asked for
            snprintf(name, sizeof name, "rate%d", i);
            sg4::Link *cap = zone_link(nz, name, 1e30);
            cap->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
            cap->set_latency(0);
            cap->seal();
            s->rate_link.push_back(cap);
        }
        nz->seal();
        if (hooks) {
            s->hooks = *hooks;
            s->has_hooks = true;
#if AR_SG4
            sg4::Comm::on_completion_cb([s](const sg4::Comm &a) { on_completion(s, a); });
            sg4::Exec::on_completion_cb([s](const sg4::Exec &a) { on_completion(s, a); });
#else
            sg4::Activity::on_completion_cb([s](const sg4::Activity &a) { on_completion(s, a); });
#endif
        }
    } catch (const std::exception &ex) {
        return ar_fail(e, AR_EBACKEND, "sim: SimGrid refused the platform: %s", ex.what());
    }
    *out = s;
    return AR_OK;
}

static size_t host_of(const ar_platform *p, int ep, int reduce) {
    if (ep >= 0) return (size_t)ep;
    int k = p->nodes[AR_EP_NODE_OF(ep)].vlink - p->nlinks;
    return (size_t)(p->nranks + 2 * k + (reduce ? 1 : 0));
}

// A started comm's rate bounded to rate_Bps on its own max-min variable (rate_on_flow): the
// smaller of that and the bound CM02 gave it (the route's narrowest link where SimGrid pays no
// latency; none, 0, where it does and TCP-gamma is 0), which is what the pool link gave: CM02 bounds
// a flow by its narrowest link, the pool link included. A merged flow's rate is each member's.
static void bound_flow(sg4::Comm *c, double rate_Bps) {
#if AR_SG_FIX
    simgrid::kernel::resource::Action *a = c->get_impl()->surf_action_;
    if (!a) return; // not started (nothing to bound)
    double b = a->get_bound();
    a->set_bound(b > 0 && b < rate_Bps ? b : rate_Bps);
#else
    (void)c, (void)rate_Bps; // rate_on_flow is never true here
#endif
}

// Starts a host-to-host flow of `bytes` now; its completion reports token (and `more`: then the
// flow stands for 1 + more.size() flows, every link of its route listed as many times).
static void start_comm(ar_sg *s, size_t from, size_t to, uint64_t bytes, uint64_t token,
                       std::vector<uint64_t> more = {}) {
    size_t cap = to >> AR_RATE_SHIFT; // its rate bound (ar_sg_set_rate)
    to = host_part(to);
    sg4::CommPtr c = sg4::Comm::sendto_init(s->hosts[from], s->hosts[to]);
    sg_unlist(c.get());
    c->set_payload_size(bytes);
    int mult = 1 + (int)more.size();
    auto *rec = new ArRec{token, c, std::move(more)};
    c->set_data(rec);
    s->zone->mult = mult; // the route is computed inside start()
    bool on_flow = cap && rate_on_flow(s);
    s->zone->rate_cap = cap && !on_flow ? rate_pool_link(s, cap)->get_impl() : nullptr; // (ar_sg_set_rate made it)
    c->start();
    s->zone->mult = 1;
    s->zone->rate_cap = nullptr;
    if (on_flow) bound_flow(c.get(), s->rate_bw[cap - 1]);
    size_t fb = (size_t)s->p->nranks + 2 * (size_t)s->p->nvlinks; // a background flow's own host
    if (from >= fb && from - fb < s->flow_comm.size()) s->flow_comm[from - fb] = c;
}

// Merged flows (exact under max-min sharing with equal weights): k flows that start at
// the same instant between the same hosts with the same bytes have the same route, so max-min gives
// them the same rate at every instant and they end together. One SimGrid flow whose route lists
// every link k times loads each link k times its rate (a constraint's consumption weight adds up
// over repeats), which is what the k flows do: the same rates for every other flow, the same end.
// Flows wait in `merge` until a timer at the same instant (after every start asked now) starts them.
static void flush_merged(ar_sg *s) {
    s->flush_pending = false;
    // the groups move to the flushing buffers first: the starts below may ask for nothing new, but
    // the buffers being flushed are never the ones being filled
    std::swap(s->merge, s->flushing);
    std::swap(s->mtok, s->ftok);
    std::swap(s->mnext, s->fnext);
    if (!s->merge_idx.empty()) s->merge_idx.clear();
    std::vector<uint64_t> more;
    for (const ar_sg::MergeGroup &g : s->flushing) {
        uint32_t t = g.first;
        while (t != AR_NIL) { // members in the order asked, AR_MERGE_MAX per SimGrid flow
            uint64_t head = s->ftok[t];
            more.clear();
            for (t = s->fnext[t]; t != AR_NIL && more.size() + 1 < AR_MERGE_MAX; t = s->fnext[t])
                more.push_back(s->ftok[t]);
            start_comm(s, g.k.from, g.k.to, g.k.bytes, head, more);
        }
    }
    s->flushing.clear();
    s->ftok.clear();
    s->fnext.clear();
}

static void start_merged(ar_sg *s, size_t from, size_t to, uint64_t bytes, uint64_t token) {
    ArMergeKey k{from, to, bytes};
    size_t gi = s->merge.size();
    if (s->merge.size() <= AR_MERGE_SCAN) {
        for (size_t i = 0; i < s->merge.size(); i++)
            if (s->merge[i].k == k) {
                gi = i;
                break;
            }
    } else {
        if (s->merge_idx.empty()) // past the scan: index every group so far
            for (size_t i = 0; i < s->merge.size(); i++) s->merge_idx.emplace(s->merge[i].k, i);
        auto it = s->merge_idx.find(k);
        if (it != s->merge_idx.end()) gi = it->second;
    }
    uint32_t ti = (uint32_t)s->mtok.size();
    s->mtok.push_back(token);
    s->mnext.push_back(AR_NIL);
    if (gi < s->merge.size()) {
        s->mnext[s->merge[gi].last] = ti;
        s->merge[gi].last = ti;
    } else {
        if (!s->merge_idx.empty()) s->merge_idx.emplace(k, gi);
        s->merge.push_back({k, ti, ti});
    }
    if (!s->flush_pending) {
        s->flush_pending = true;
        simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock(), [s]() { flush_merged(s); });
    }
}

// With AR_SG_ARLAB_LATENCY: the flow starts once the route's latency is paid; a zero-byte
// transfer is its latency alone (done by a timer, never from inside the caller's call).
static void start_after(ar_sg *s, double lat, size_t from, size_t to, uint64_t bytes, uint64_t token) {
    double now = sg4::Engine::get_clock(), date = now + lat;
    if (!bytes) {
        simgrid::kernel::timer::Timer::set(date, [s, token]() { deliver(s, token); });
    } else if (lat > 0) {
        uint64_t key;
        std::memcpy(&key, &date, sizeof key);
        uint32_t wi;
        if (!s->wfree.empty()) {
            wi = s->wfree.back();
            s->wfree.pop_back();
            s->wslab[wi] = {from, to, bytes, token, AR_NIL};
        } else {
            wi = (uint32_t)s->wslab.size();
            s->wslab.push_back({from, to, bytes, token, AR_NIL});
        }
        auto ins = s->waiting.emplace(key, std::make_pair(wi, wi));
        if (ins.second) {
            simgrid::kernel::timer::Timer::set(date, [s, key]() {
                auto it = s->waiting.find(key);
                uint32_t i = it->second.first;
                s->waiting.erase(it);
                while (i != AR_NIL) { // in the order asked
                    ar_sg::Waiting f = s->wslab[i];
                    s->wfree.push_back(i);
                    start_merged(s, f.from, f.to, f.bytes, f.token);
                    i = f.next;
                }
            });
        } else {
            s->wslab[ins.first->second.second].next = wi;
            ins.first->second.second = wi;
        }
    } else {
        start_merged(s, from, to, bytes, token);
    }
}

extern "C" void ar_sg_comm(ar_sg *s, int src, int dst, int reduce, uint64_t bytes, uint64_t token) {
    size_t from = host_of(s->p, src, 0), to = host_of(s->p, dst, reduce);
    size_t tob = to | s->rate_cur << AR_RATE_SHIFT;
    if (!s->arlab_latency) return start_comm(s, from, tob, bytes, token);
    start_after(s, s->zone->route_latency(from, to), from, tob, bytes, token);
}

extern "C" int ar_sg_comm_eager(ar_sg *s, int src, int dst, int reduce, uint64_t bytes, uint64_t token) {
    if (!s->arlab_latency) {
        ar_sg_comm(s, src, dst, reduce, bytes, token);
        return 0;
    }
    start_after(s, 0, host_of(s->p, src, 0), host_of(s->p, dst, reduce) | s->rate_cur << AR_RATE_SHIFT, bytes, token);
    return 1;
}

extern "C" int ar_sg_set_rate(ar_sg *s, double rate_Bps) {
    size_t i = rate_index(s, rate_Bps);
    if (i && !rate_on_flow(s) && !rate_pool_link(s, i)) {
        s->rate_cur = 0;
        return -1;
    }
    s->rate_cur = i;
    return 0;
}

extern "C" int ar_sg_mbox_rate(ar_sg *s, double rate_Bps) {
    size_t i = rate_index(s, rate_Bps);
    if (!i || rate_on_flow(s)) return 0;
    // SimGrid 3.32's CM02 bounds a comm that pays SimGrid's latency by min(Comm::set_rate's rate,
    // TCP-gamma / 2 latency), none where TCP-gamma is 0 (arlab's setting); TCP-gamma at the largest
    // double keeps the rate (a flow without one: its route's narrowest link, which bounds it anyway).
    // The pool link alone is no bound under the naive engine's fairbottleneck solver (see rate_pool).
    // Set before the run, from outside any actor; TCP-gamma bounds nothing else in CM02.
    if (SIMGRID_VERSION < 40000 && simgrid::config::get_value<double>("network/TCP-gamma") == 0)
        simgrid::config::set_value("network/TCP-gamma", std::numeric_limits<double>::max());
    return rate_pool_link(s, i) ? 0 : -1;
}

extern "C" sg_comm_t ar_sg_put_async_rate(ar_sg *s, sg_mailbox_t m, void *payload, long bytes, double rate_Bps) {
    // per flow where it can: the comm's own variable, bounded by whichever side's start made its
    // action (the match); else the bound as the sending host's pool link (a comm with SimGrid's
    // latency drops Comm::set_rate's bound when network/TCP-gamma is 0), and as the comm's (enough
    // where SimGrid pays no latency)
    bool on_flow = rate_Bps > 0 && rate_on_flow(s);
    size_t i = on_flow ? 0 : rate_index(s, rate_Bps);
    sg4::Link *cap = i ? rate_pool_link(s, i) : nullptr; // never nullptr after ar_sg_mbox_rate said 0
    size_t h = sg4::this_actor::get_host()->get_netpoint()->id();
    if (s->zone->src_cap.size() <= h) s->zone->src_cap.resize(h + 1, nullptr);
    s->zone->src_cap[h] = cap ? cap->get_impl() : nullptr;
    sg4::CommPtr c = m->put_init(payload, (uint64_t)bytes);
    if (rate_Bps > 0) c->set_rate(rate_Bps);
    c->start();
    if (on_flow) bound_flow(c.get(), rate_Bps); // (no action yet: the receive's start bounds it)
    c->add_ref();                               // the caller's reference, as sg_mailbox_put_async gives it
    return c.get();
}

extern "C" sg_comm_t ar_sg_get_async_rate(ar_sg *s, sg_mailbox_t m, void **data, double rate_Bps) {
    sg_comm_t c = sg_mailbox_get_async(m, data);
    if (rate_Bps > 0 && rate_on_flow(s)) bound_flow(c, rate_Bps); // it matched a send: its action is new
    return c;
}

extern "C" void ar_sg_flow(ar_sg *s, int i, uint64_t bytes, uint64_t token) {
    // from flow i's own host: its route starts with its private cap link (ArZone::get_local_route)
    size_t from = (size_t)s->p->nranks + 2 * (size_t)s->p->nvlinks + (size_t)i;
    size_t to = (size_t)s->zone->flow_dst[(size_t)i];
    s->flow_bytes[(size_t)i] = bytes;
    if (!s->arlab_latency) return start_comm(s, from, to, bytes, token);
    start_after(s, s->zone->route_latency(from, to), from, to, bytes, token);
}

extern "C" double ar_sg_flow_sent(const ar_sg *s, int i) {
    if (i < 0 || (size_t)i >= s->flow_comm.size() || !s->flow_comm[(size_t)i]) return 0; // still paying its latency
    double left = s->flow_comm[(size_t)i]->get_remaining();                              // 0 once it completed
    return std::max(0.0, (double)s->flow_bytes[(size_t)i] - left);
}

extern "C" void ar_sg_exec(ar_sg *s, int rank, double seconds, uint64_t token) {
    sg4::ExecPtr x = sg4::Exec::init();
    sg_unlist(x.get());
    x->set_host(s->hosts[(size_t)rank]);
    x->set_flops_amount(seconds * AR_SG_HOST_SPEED);
    auto *rec = new ArRec{token, x, {}};
    x->set_data(rec);
    x->start();
}

extern "C" void ar_sg_timer(ar_sg *s, double seconds, uint64_t token) {
    simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock() + seconds, [s, token]() { deliver(s, token); });
}

extern "C" void ar_sg_run(ar_sg *s) { s->engine->run(); }

extern "C" double ar_sg_now(void) { return sg4::Engine::get_clock(); }

extern "C" void *ar_sg_host(const ar_sg *s, int rank) { return s->hosts[(size_t)rank]; }

extern "C" void ar_sg_close(ar_sg *s) {
    // SimGrid's engine (and the zone it owns) stays until the process exits.
    if (s) {
        s->graveyard.clear();
        s->hooks = ar_sg_hooks{};
        delete s;
    }
}
