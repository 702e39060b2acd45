import CGStreamer
import GstBridge

/// Registers a Swift element type with GStreamer: builds the bridge's class
/// description from the type's static data and registers the factory.
/// `plugin` is the plugin being loaded (or registered statically).
@discardableResult
public func registerElement<E: ElementImpl>(_ type: E.Type, plugin: OpaquePointer?) -> Bool {
    let info = ElementTypeRegistry.classInfo(for: type)
    return parley_element_register(plugin, info) != 0
}

/// What the bridge needs to create instances of one Swift element type.
final class ElementTypeBox: @unchecked Sendable {
    // @unchecked: immutable after creation.
    let type: any ElementImpl.Type
    let propertyNames: [String]
    init(_ type: any ElementImpl.Type) {
        self.type = type
        propertyNames = type.properties.map(\.name)
    }
}

/// One Swift element instance, owned by its GstElement.
final class InstanceBox {
    let driver: any ElementDriver
    var element: any ElementImpl { driver.implementation }
    let propertyNames: [String]
    init(_ driver: any ElementDriver, propertyNames: [String]) {
        self.driver = driver
        self.propertyNames = propertyNames
    }
}

enum ElementTypeRegistry {
    /// Class descriptions are built once per type and never freed: GObject
    /// keeps pointers into them for the life of the process.
    private static let cache = LockedDictionary<ObjectIdentifier, UnsafeMutablePointer<ParleyElementClassInfo>>()

    static func classInfo<E: ElementImpl>(for type: E.Type) -> UnsafeMutablePointer<ParleyElementClassInfo> {
        cache.value(for: ObjectIdentifier(type)) { makeClassInfo(type) }
    }

    private static func makeClassInfo<E: ElementImpl>(_ type: E.Type) -> UnsafeMutablePointer<ParleyElementClassInfo> {
        let metadata = E.metadata
        // Registered now rather than at the first log line, so
        // `gst-inspect-1.0 --gst-debug-help` and GST_DEBUG wildcards see it.
        _ = E.log
        let specs = E.properties
        let paramSpecs = UnsafeMutablePointer<UnsafeMutablePointer<GParamSpec>?>.allocate(capacity: max(1, specs.count))
        for (index, spec) in specs.enumerated() { paramSpecs[index] = spec.makeParamSpec() }
        let info = UnsafeMutablePointer<ParleyElementClassInfo>.allocate(capacity: 1)
        var kind = PARLEY_KIND_ELEMENT
        var live = false
        switch E.bridgeKind {
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
            n_request_sinks: guint(E.pads.requestSinks.count),
            request_sink_names: permanentCStrings(E.pads.requestSinks.map(\.name)),
            request_sink_caps: permanentCStrings(E.pads.requestSinks.map(\.caps)),
            n_properties: guint(specs.count),
            properties: paramSpecs,
            source_is_live: live ? 1 : 0,
            source_format: gint(GST_FORMAT_TIME.rawValue),
            callbacks: bridgeCallbacks,
            type_context: Unmanaged.passRetained(ElementTypeBox(type)).toOpaque()))
        return info
    }
}

/// A C array of C strings that lives as long as the process (class data).
private func permanentCStrings(_ strings: [String]) -> UnsafePointer<UnsafePointer<gchar>?> {
    let array = UnsafeMutablePointer<UnsafePointer<gchar>?>.allocate(capacity: max(1, strings.count))
    for (index, string) in strings.enumerated() { array[index] = permanentCString(string) }
    return UnsafePointer(array)
}

/// Opens the existential to build the kind's driver for a new instance.
private func makeDriver<E: ElementImpl>(_ type: E.Type, _ element: ElementHandle) -> any ElementDriver {
    E.makeDriver(for: E(element: element))
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
            let driver = makeDriver(box.type, ElementHandle(element!))
            return Unmanaged.passRetained(InstanceBox(driver, propertyNames: box.propertyNames)).toOpaque()
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
            instance(pointer).driver.changeState(StateChange(transition), after: after != 0)
                ? GST_STATE_CHANGE_SUCCESS : GST_STATE_CHANGE_FAILURE
        },
        chain: { pointer, pad, buffer in
            instance(pointer).driver.chain(pad: Pad(pad!), buffer: Buffer(taking: buffer!)).gstValue
        },
        pad_event: { pointer, pad, event in
            instance(pointer).driver.event(pad: Pad(pad!), event: Event(taking: event!)) ? 1 : 0
        },
        pad_query: { pointer, pad, query in
            instance(pointer).driver.query(pad: Pad(pad!), query: Query(query!)) ? 1 : 0
        },
        pad_added: { pointer, pad in instance(pointer).driver.padAdded(Pad(pad!)) },
        pad_removed: { pointer, pad in instance(pointer).driver.padRemoved(Pad(pad!)) },
        start: { pointer in instance(pointer).driver.baseStart() ? 1 : 0 },
        stop: { pointer in instance(pointer).driver.baseStop() ? 1 : 0 },
        render: { pointer, buffer in
            // The base sink keeps its reference: take one of our own.
            gst_mini_object_ref(UnsafeMutableRawPointer(buffer!).assumingMemoryBound(to: GstMiniObject.self))
            return instance(pointer).driver.render(Buffer(taking: buffer!)).gstValue
        },
        sink_event: { pointer, event in
            // The base class gets the event after us: lend it, do not take it.
            let borrowed = Event(taking: parley_event_ref(event!))
            return instance(pointer).driver.sinkEvent(borrowed) ? 1 : 0
        },
        create_buffer: { pointer, out in
            switch instance(pointer).driver.create() {
            case .success(let buffer):
                out!.pointee = buffer.transferOwnership()
                return GST_FLOW_OK
            case .failure(let error):
                out!.pointee = nil
                return error.gstValue
            }
        },
        fixate: { _, caps in gst_caps_fixate(caps) },
        unlock: { pointer in instance(pointer).driver.unlock(); return 1 },
        unlock_stop: { pointer in instance(pointer).driver.unlockStop(); return 1 }))
    return UnsafePointer(callbacks)
}()
