/**
 * Well-known kinds that sit beside gatehouse's manifests as a matter of course (the CRDs
 * themselves, a Namespace, the proxy's Deployment and Service, ...): gatehouse skips them
 * untouched, neither `${ENV}`-substituted (`./documents.ts`) nor validated beyond their kind
 * (`./kinds.ts`). A module of its own, importing nothing, so that reading documents does not
 * depend on the resource model.
 */

/** Gateway API's group (`./resources.ts` exports it too; repeated to keep this module a leaf). */
const GATEWAY_API = 'gateway.networking.k8s.io'

/** Well-known kinds by API group (`''` is the core group) that gatehouse skips. */
const FOREIGN: Readonly<Record<string, readonly string[]>> = {
  '': [
    'Namespace',
    'ConfigMap',
    'Secret',
    'Service',
    'ServiceAccount',
    'Endpoints',
    'Pod',
    'PersistentVolumeClaim',
    'LimitRange',
    'ResourceQuota',
  ],
  apps: ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'],
  batch: ['Job', 'CronJob'],
  autoscaling: ['HorizontalPodAutoscaler'],
  policy: ['PodDisruptionBudget'],
  'apiextensions.k8s.io': ['CustomResourceDefinition'],
  'rbac.authorization.k8s.io': ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'],
  'networking.k8s.io': ['NetworkPolicy', 'Ingress', 'IngressClass'],
  'discovery.k8s.io': ['EndpointSlice'],
  'cert-manager.io': ['Certificate', 'Issuer', 'ClusterIssuer'],
  // Gateway API kinds another controller serves: gatehouse serves HTTP routes only.
  [GATEWAY_API]: ['GatewayClass', 'GRPCRoute', 'TCPRoute', 'TLSRoute', 'UDPRoute'],
}

/** The group of an `apiVersion` (`''` for the core group's `v1`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/')
  return slash < 0 ? '' : apiVersion.slice(0, slash)
}

/** Whether `kind` of `apiVersion` is a well-known kind gatehouse skips. */
export function isForeignKind(apiVersion: unknown, kind: unknown): boolean {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return false
  return FOREIGN[groupOf(apiVersion)]?.includes(kind) ?? false
}
