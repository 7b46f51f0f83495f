import type {
  IAuthenticateGeneric,
  ICredentialTestRequest,
  ICredentialType,
  INodeProperties,
  Icon,
} from 'n8n-workflow';

/** A Lightbox API key and the address of the studio's Lightbox (docs/api.md §3 and §20). */
export class LightboxApi implements ICredentialType {
  name = 'lightboxApi';

  displayName = 'Lightbox API';

  icon: Icon = { light: 'file:lightbox.svg', dark: 'file:lightbox.dark.svg' };

  documentationUrl = 'https://github.com/lightbox/lightbox/tree/main/integrations/n8n#setup';

  properties: INodeProperties[] = [
    {
      displayName: 'Lightbox Address',
      name: 'baseUrl',
      type: 'string',
      default: '',
      placeholder: 'https://lightbox.yourstudio.com',
      required: true,
      description: 'The web address you open your Lightbox dashboard at, without /dashboard',
    },
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      description:
        'In your Lightbox dashboard open API keys and generate a key with full access (it starts with lbx_). A key starting with lbx_test_ works on test data only.',
    },
  ];

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
  };

  test: ICredentialTestRequest = {
    request: { baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}', url: '/v1/account' },
  };
}
