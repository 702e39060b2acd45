import CGStreamer
import GstBridge

/// Registers a Swift element type with GStreamer: builds the bridge's class
/// description from the type's static data and registers the factory.
/// `plugin` is the plugin being loaded (or registered statically).
@discardableResult
public func registerElement<E: Element>(_ type: E.Type, plugin: OpaquePointer?) -> Bool {
    let info = ElementTypeRegistry.classInfo(for: type)
    return parley_element_register(plugin, info) != 0
}

/// What the bridge needs to create instances of one Swift element type.
final class ElementTypeBox: @unchecked Sendable {
    // @unchecked: immutable after creation.
    let type: any Element.Type
    let propertyNames: [String]
    init(_ type: any Element.Type) {
        self.type = type
        propertyNames = type.properties.map(\.name)
    }
}

/// One Swift element instance, owned by its GstElement.
final class InstanceBox {
    let element: any Element
    let propertyNames: [String]
    init(_ element: any Element, propertyNames: [String]) {
        self.element = element
        self.propertyNames = propertyNames
    }
}

enum ElementTypeRegistry {
    /// Class descriptions are built once per type and never freed: GObject
    /// keeps pointers into them for the life of the process.
    private static let cache = LockedDictionary<ObjectIdentifier, UnsafeMutablePointer<ParleyElementClassInfo>>()

    static func classInfo<E: Element>(for type: E.Type) -> UnsafeMutablePointer<ParleyElementClassInfo> {
        cache.value(for: ObjectIdentifier(type)) { makeClassInfo(type) }
    }

    private static func makeClassInfo<E: Element>(_ type: E.Type) -> UnsafeMutablePointer<ParleyElementClassInfo> {
        let metadata = E.metadata
        let specs = E.properties
        let paramSpecs = UnsafeMutablePointer<UnsafeMutablePointer<GParamSpec>?>.allocate(capacity: max(1, specs.count))
        for (index, spec) in specs.enumerated() { paramSpecs[index] = spec.makeParamSpec() }
        let info = UnsafeMutablePointer<ParleyElementClassInfo>.allocate(capacity: 1)
        var kind = PARLEY_KIND_ELEMENT
        var live = false
        switch E.kind {
        case .element: kind = PARLEY_KIND_ELEMENT
        case .sink: kind = PARLEY_KIND_SINK
        case .source(let isLive): kind = PARLEY_KIND_SOURCE; live = isLive
        }
        info.initialize(to: ParleyElementClassInfo(
            kind: kind,
            type_name: permanentCString(metadata.typeName),
            factory_name: permanentCString(metadata.factoryName),
            rank: metadata.rank,
            long_name: permanentCString(metadata.longName),
            klass: permanentCString(metadata.klass),
            description: permanentCString(metadata.description),
            author: permanentCString(metadata.author),
            doc_uri: metadata.docURI.map { permanentCString($0) },
            example: metadata.example.map { permanentCString($0) },
            sink_caps: E.pads.sink.map { permanentCString($0) },
            src_caps: E.pads.src.map { permanentCString($0) },
            request_src_caps: E.pads.requestSrc.map { permanentCString($0) },
            n_properties: guint(specs.count),
            properties: paramSpecs,
            source_is_live: live ? 1 : 0,
            source_format: gint(GST_FORMAT_TIME.rawValue),
            callbacks: bridgeCallbacks,
            type_context: Unmanaged.passRetained(ElementTypeBox(type)).toOpaque()))
        return info
    }
}

private func instance(_ pointer: gpointer?) -> InstanceBox {
    Unmanaged<InstanceBox>.fromOpaque(pointer!).takeUnretainedValue()
}

/// The bridge's callbacks: the same C-callable functions for every type; the
/// instance pointer says which Swift object they are for.
private nonisolated(unsafe) let bridgeCallbacks: UnsafePointer<ParleyCallbacks> = {  // immutable once built
    let callbacks = UnsafeMutablePointer<ParleyCallbacks>.allocate(capacity: 1)
    callbacks.initialize(to: ParleyCallbacks(
        create: { context, element in
            let box = Unmanaged<ElementTypeBox>.fromOpaque(context!).takeUnretainedValue()
            let object = box.type.init(element: ElementHandle(element!))
            return Unmanaged.passRetained(InstanceBox(object, propertyNames: box.propertyNames)).toOpaque()
        },
        destroy: { pointer in
            Unmanaged<InstanceBox>.fromOpaque(pointer!).release()
        },
        get_property: { pointer, id, value in
            let box = instance(pointer)
            let name = box.propertyNames[Int(id) - 1]
            GValueIO.write(box.element.property(named: name), to: value!)
        },
        set_property: { pointer, id, value in
            let box = instance(pointer)
            let name = box.propertyNames[Int(id) - 1]
            if let typed = GValueIO.read(value!) { box.element.setProperty(named: name, to: typed) }
        },
        change_state: { pointer, transition, after in
            switch instance(pointer).element.changeState(transition, after: after != 0) {
            case .success: GST_STATE_CHANGE_SUCCESS
            case .failure: GST_STATE_CHANGE_FAILURE
            case .noPreroll: GST_STATE_CHANGE_NO_PREROLL
            case .async: GST_STATE_CHANGE_ASYNC
            }
        },
        chain: { pointer, pad, buffer in
            instance(pointer).element.chain(pad: Pad(pad!), buffer: Buffer(taking: buffer!))
        },
        pad_event: { pointer, pad, event in
            instance(pointer).element.event(pad: Pad(pad!), event: Event(taking: event!)) ? 1 : 0
        },
        pad_query: { pointer, pad, query in
            instance(pointer).element.query(pad: Pad(pad!), query: query!) ? 1 : 0
        },
        pad_added: { pointer, pad in instance(pointer).element.padAdded(Pad(pad!)) },
        pad_removed: { pointer, pad in instance(pointer).element.padRemoved(Pad(pad!)) },
        start: { pointer in instance(pointer).element.start() ? 1 : 0 },
        stop: { pointer in instance(pointer).element.stop() ? 1 : 0 },
        render: { pointer, buffer in
            // The base sink keeps its reference: take one of our own.
            gst_mini_object_ref(UnsafeMutableRawPointer(buffer!).assumingMemoryBound(to: GstMiniObject.self))
            return instance(pointer).element.render(buffer: Buffer(taking: buffer!))
        },
        sink_event: { pointer, event in
            // The base class gets the event after us: lend it, do not take it.
            let borrowed = Event(taking: parley_event_ref(event!))
            return instance(pointer).element.sinkEvent(borrowed) ? 1 : 0
        },
        create_buffer: { pointer, out in
            let (flow, buffer) = instance(pointer).element.create()
            out!.pointee = buffer?.transferOwnership()
            return flow
        },
        fixate: { pointer, caps in
            instance(pointer).element.fixate(Caps(taking: caps!)).transferOwnership()
        },
        unlock: { pointer in instance(pointer).element.unlock() ? 1 : 0 },
        unlock_stop: { pointer in instance(pointer).element.unlockStop() ? 1 : 0 }))
    return UnsafePointer(callbacks)
}()
